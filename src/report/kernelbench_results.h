#pragma once

// Results in KernelBench's own file, eval_results.json (its scripts/eval_from_generations.py
// writes it; benchmark_eval_analysis.py reads it), so KernelBench's tools read ours:
//
//   {"40": [{"sample_id": 0, "compiled": true, "correctness": true,
//            "metadata": {"hardware": "NVIDIA H200", "device": "gpu0", ...},
//            "runtime": 0.117,
//            "runtime_stats": {"mean": 0.117, "std": 0.0021, "min": 0.114, "max": 0.125,
//                              "num_trials": 100, "hardware": "NVIDIA H200", "device": "gpu0",
//                              "fast_p": 1.62, "baseline_time": 0.19}}]}
//
// Keys are problem ids (the number a KernelBench task file's name starts with; a task named
// otherwise keys by its whole name). compiled: false for compile_error only (KernelBench counts
// a kernel that loads and then fails as compiled); correctness: the verdict is correct. runtime
// is the candidate's mean in ms (-1.0 when untimed) and runtime_stats KernelBench's figures
// rounded to 3 significant digits, plus fast_p and baseline_time as the AdaExplore reference
// release adds them (here: the speedup on the profile's statistic, and the reference's mean).
// metadata holds KernelBench's error keys (compilation_error, runtime_error, correctness_issue)
// and everything else under "adaexplore" (verdict, reason, check, profile, statistic). A
// verdict that is not the kernel's (error, task_error) gets no entry, as KernelBench writes none
// when its harness fails.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/verdict.h"

namespace adaexplore {

// The problem key of a task: "40" for "40_Gemm_Scale.py"'s stem "40_Gemm_Scale".
std::string KernelBenchProblemKey(const std::string& task);

// The KernelBench level of a task file from its folder (".../level1/19_ReLU.py": 1); unset
// when the folder is not levelN.
std::optional<int> KernelBenchTaskLevel(const std::string& task_path);

// The file `export` writes a task's kernel to: KernelBench's own name for a numbered problem
// ("level_1_problem_40_sample_0_kernel.py", the problem as KernelBenchProblemKey gives it, so the
// file and eval_results.json's key always agree), else "<name>_kernel.py" with the name made
// safe (task/task_file_name.h): the name may come from a database anyone could have edited.
std::string KernelBenchKernelFile(const std::string& task, int level);

// One sample's entry; nullopt for a verdict that is not the kernel's.
std::optional<nlohmann::json> KernelBenchSample(const EvalResult& result, int sample_id);

// The whole file for `results` in order; a problem's samples are numbered from 0.
nlohmann::json KernelBenchResults(const std::vector<EvalResult>& results);

}  // namespace adaexplore
