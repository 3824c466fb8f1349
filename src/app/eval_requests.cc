#include "app/eval_requests.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <utility>

#include "report/kernelbench_results.h"
#include "task/task_file.h"
#include "task/task_kind.h"
#include "task/workload_selection.h"

namespace adaexplore {

bool FlatNameIsFor(const FlatKernelName& name, const std::string& task_path) {
  const std::string stem = std::filesystem::path(task_path).stem().string();
  const std::string problem = KernelBenchProblemKey(stem);
  if (problem == stem || name.problem != problem) {
    return false;
  }
  const std::optional<int> level = KernelBenchTaskLevel(task_path);
  return !level || name.level == *level || name.level == 0;
}

namespace {

namespace fs = std::filesystem;

using Pairs = std::vector<std::pair<std::string, std::string>>;  // (task, kernel)

// The flat-named kernels of `task` in `dir`, by sample.
std::vector<std::string> FlatKernels(const fs::path& dir, const std::string& task) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::optional<FlatKernelName> name = ParseFlatKernelName(entry.path().filename());
    if (name && FlatNameIsFor(*name, task)) {
      found.emplace_back(name->sample, entry.path().string());
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& [sample, path] : found) {
    paths.push_back(std::move(path));
  }
  return paths;
}

// --problem with --kernels-dir: each named task against KD/<task>/*, KD/<task>.py or its
// flat-named files; a task with none is missing.
Result<Pairs> ProblemPairs(const RequestSources& f, std::vector<MissingProblem>& missing) {
  Pairs pairs;
  std::error_code ec;
  for (const std::string& task : f.problems) {
    const std::string stem = fs::path(task).stem().string();
    const fs::path dir = fs::path(f.kernels_dir) / stem;
    const fs::path file = fs::path(f.kernels_dir) / (stem + ".py");
    std::vector<std::string> kernels;
    if (fs::is_directory(dir, ec)) {
      ASSIGN_OR_RETURN(kernels, ListCandidateFiles(dir.string(), TakesJsonCandidates(task)));
    } else if (fs::exists(file, ec)) {
      kernels.push_back(file.string());
    } else {
      kernels = FlatKernels(f.kernels_dir, task);
    }
    for (const std::string& k : kernels) {
      pairs.emplace_back(task, k);
    }
    if (kernels.empty()) {
      const std::optional<int> level = KernelBenchTaskLevel(task);
      missing.push_back({.task = task,
                         .looked_for = fmt::format(
                             "looked for {}/, {}.py and level_{}_problem_{}_sample_*_kernel.py "
                             "in {}",
                             stem, stem, level ? std::to_string(*level) : "L",
                             KernelBenchProblemKey(stem), f.kernels_dir)});
    }
  }
  if (pairs.empty()) {
    std::string lines;
    for (const MissingProblem& m : missing) {
      lines += "\n  " + m.Line();
    }
    return NotFound("no kernels in " + f.kernels_dir + " for the problems given:" + lines);
  }
  return pairs;
}

// The task in `tasks_dir` a kernel of KD is for: TD/<stem>.py or .json, or for a flat-named
// kernel the task of its problem number.
Result<std::string> TaskForEntry(const std::string& tasks_dir, const fs::path& entry, bool is_dir) {
  std::error_code ec;
  const std::string stem = is_dir ? entry.filename().string() : entry.stem().string();
  for (const char* extension : {".py", ".json"}) {  // .json: a FlashInfer-Trace definition.
    const fs::path task = fs::path(tasks_dir) / (stem + extension);
    if (fs::exists(task, ec)) {
      return task.string();
    }
  }
  if (const std::optional<FlatKernelName> name = ParseFlatKernelName(entry.filename());
      name && !is_dir) {
    std::vector<std::string> matches;
    for (const auto& task : fs::directory_iterator(tasks_dir, ec)) {
      if (task.path().extension() == ".py" && FlatNameIsFor(*name, task.path().string())) {
        matches.push_back(task.path().string());
      }
    }
    if (matches.size() == 1) {
      return matches.front();
    }
    if (matches.size() > 1) {
      return InvalidArgument(fmt::format("{} names problem {}, which {} tasks in {} share",
                                         entry.string(), name->problem, matches.size(), tasks_dir));
    }
  }
  return NotFound("no task " + stem + ".py or " + stem + ".json in " + tasks_dir +
                  " for kernels in " + entry.string());
}

// --tasks-dir with --kernels-dir: every folder and .py file of KD against its task.
Result<Pairs> BatchPairs(const RequestSources& f) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(f.kernels_dir, ec)) {
    entries.push_back(e.path());
  }
  if (ec) {
    return NotFound("cannot list " + f.kernels_dir + ": " + ec.message());
  }
  std::sort(entries.begin(), entries.end());
  Pairs pairs;
  for (const fs::path& entry : entries) {
    const bool dir = fs::is_directory(entry, ec);
    if (!dir && entry.extension() != ".py") {
      continue;
    }
    ASSIGN_OR_RETURN(const std::string task, TaskForEntry(f.tasks_dir, entry, dir));
    if (dir) {
      ASSIGN_OR_RETURN(std::vector<std::string> files,
                       ListCandidateFiles(entry.string(), TakesJsonCandidates(task)));
      for (const std::string& k : files) {
        pairs.emplace_back(task, k);
      }
    } else {
      pairs.emplace_back(task, entry.string());
    }
  }
  return pairs;
}

// --task with --kernel/--kernel-dir.
Result<Pairs> SingleTaskPairs(const RequestSources& f) {
  if (f.task.empty()) {
    return InvalidArgument(
        "give --task with --kernel/--kernel-dir, or --tasks-dir with --kernels-dir");
  }
  std::error_code ec;
  if (fs::is_directory(f.task, ec)) {
    return InvalidArgument("--task " + f.task +
                           " is a folder: give one task file (.py or .json), or --tasks-dir "
                           "with --kernels-dir for a folder of tasks");
  }
  for (const std::string& k : f.kernels) {
    if (fs::is_directory(k, ec)) {
      return InvalidArgument("--kernel " + k +
                             " is a folder: use --kernel-dir for a folder of kernels");
    }
  }
  std::vector<std::string> kernels = f.kernels;
  if (!f.kernel_dir.empty()) {
    ASSIGN_OR_RETURN(std::vector<std::string> files,
                     ListCandidateFiles(f.kernel_dir, TakesJsonCandidates(f.task)));
    kernels.insert(kernels.end(), files.begin(), files.end());
  }
  if (kernels.empty()) {
    return InvalidArgument("no kernels to evaluate (use --kernel or --kernel-dir)");
  }
  Pairs pairs;
  for (const std::string& k : kernels) {
    pairs.emplace_back(f.task, k);
  }
  return pairs;
}

}  // namespace

std::string MissingProblem::Line() const {
  return fs::path(task).stem().string() + "  no kernels (" + looked_for + ")";
}

std::optional<FlatKernelName> ParseFlatKernelName(const std::string& file_name) {
  static const std::regex kFlat(
      R"(level_(\d{1,3})_problem_(\d{1,12})_sample_(\d{1,6})_kernel\.py)");
  std::smatch m;
  if (!std::regex_match(file_name, m, kFlat)) {
    return std::nullopt;
  }
  std::string problem = m[2].str();
  problem.erase(0, std::min(problem.find_first_not_of('0'), problem.size() - 1));
  return FlatKernelName{
      .level = std::stoi(m[1].str()), .problem = problem, .sample = std::stoi(m[3].str())};
}

Result<CollectedRequests> CollectRequests(const RequestSources& given) {
  RequestSources f = given;
  CollectedRequests out;
  Pairs pairs;
  if (!f.problems.empty()) {
    if (!f.task.empty() || !f.tasks_dir.empty()) {
      return InvalidArgument("--problem names the tasks: give no --task or --tasks-dir with it");
    }
    if (!f.kernels_dir.empty()) {
      ASSIGN_OR_RETURN(pairs, ProblemPairs(f, out.missing));
    } else if (f.problems.size() == 1) {
      f.task = f.problems.front();  // One problem: its kernels by --kernel/--kernel-dir.
      ASSIGN_OR_RETURN(pairs, SingleTaskPairs(f));
    } else {
      return InvalidArgument(
          "several problems need --kernels-dir, with a folder (or .py file) of kernels per task "
          "name, or KernelBench's level_L_problem_P_sample_S_kernel.py files");
    }
  } else if (!f.tasks_dir.empty() || !f.kernels_dir.empty()) {
    if (f.tasks_dir.empty() || f.kernels_dir.empty() || !f.task.empty()) {
      return InvalidArgument(
          "the batch form needs both --tasks-dir and --kernels-dir, and no --task");
    }
    ASSIGN_OR_RETURN(pairs, BatchPairs(f));
  } else {
    ASSIGN_OR_RETURN(pairs, SingleTaskPairs(f));
  }
  std::map<std::string, SourceFile> tasks;
  for (const auto& [task_path, kernel_path] : pairs) {
    if (!tasks.contains(task_path)) {
      Result<SourceFile> task = ReadTaskFile(task_path);
      if (!task.ok()) {
        return task.status().WithContext("reading the task");
      }
      RETURN_IF_ERROR(SelectWorkloads(f.workloads, *task));
      tasks.emplace(task_path, std::move(*task));
    }
    Result<SourceFile> kernel = ReadSourceFile(kernel_path);
    if (!kernel.ok()) {  // That file's verdict; the batch goes on.
      EvalResult r;
      r.task = tasks.at(task_path).name;
      r.task_path = task_path;
      r.kernel_path = kernel_path;
      r.verdict = Verdict::kCompileError;
      r.reason = "cannot be read as source: " + kernel.status().message();
      out.unreadable.push_back(std::move(r));
      continue;
    }
    out.requests.push_back(
        EvalRequest{.task = tasks.at(task_path), .candidate = std::move(*kernel)});
  }
  return out;
}

}  // namespace adaexplore
