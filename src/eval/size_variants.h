#pragma once

// The other size sets a correct KernelBench kernel is checked at (issue 58): a kernel that bakes
// the task's sizes into its grid or loops (`N = 48 * 333` for `x.numel()`), or that is right only
// for sizes divisible by its block, passes the trials at the task's own sizes and fails at these.
// Made from the task's module-level integers (facts.task_sizes, as the task loaded them); only
// sizes above kVariedAbove change: kernel sizes, strides, groups and small channel counts stay,
// as the reference's own asserts often tie them together.
//   smaller  each varied size v becomes the odd number nearest v / 2 (at least kVariedAbove + 1)
//   uneven   each varied size v becomes v + 1: no power-of-two block divides it, and the inputs
//            stay the task's size (no more memory than its own)
// A set that changes nothing is left out; a task whose sizes cannot vary (its reference fails at
// a set) keeps today's check.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace adaexplore {

inline constexpr int64_t kVariedAbove = 16;

struct SizeVariant {
  std::string name;                      // "smaller", "uneven".
  std::map<std::string, int64_t> sizes;  // The job's `sizes` option: every size that changes.
};

std::vector<SizeVariant> SizeVariants(const std::map<std::string, int64_t>& task_sizes);

// "batch_size=65, dim=2049": a set's sizes as a finding names them.
std::string SizesText(const std::map<std::string, int64_t>& sizes);

}  // namespace adaexplore
