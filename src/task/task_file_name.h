#pragma once

// The one place a task's name becomes part of a file name. Names come back from run databases,
// which anyone can edit or hand over, so a name is untrusted text: "../../x" written as
// out + "/" + name + ".py" would land outside the output folder. Every command that names a
// file after a task (run's best kernels, export) goes through TaskFileStem.

#include <string>
#include <string_view>

namespace adaexplore {

// `task` as a single path component that is safe to create under any folder: a name made only
// of letters, digits, '_', '-' and '.', not starting with '.', and at most kMaxStemBytes long,
// comes back unchanged ("19_ReLU"). Any other name has each other byte replaced by '_', a leading
// '.' replaced too, and a short hash of the original appended, so that two names that differ
// never share a file ("../../x" -> "_._.._x-9cdf6a50").
std::string TaskFileStem(std::string_view task);

// Longer names are cut (and hashed); the file system's limit is 255 bytes for a whole name.
inline constexpr size_t kMaxStemBytes = 160;

}  // namespace adaexplore
