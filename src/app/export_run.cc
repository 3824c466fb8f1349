#include "app/export_run.h"

#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/json_text.h"
#include "eval/verdict.h"
#include "report/flashinfer_traces.h"
#include "report/kernelbench_results.h"
#include "store/run_db.h"
#include "store/stored_json.h"
#include "sys/fs.h"
#include "task/flashinfer_solution.h"
#include "task/task_file.h"
#include "workers/protocol.h"

namespace adaexplore {
namespace {

// The kernel files an earlier export into `out` wrote, from its index.json: plain names only,
// since the index may have been edited by anyone.
std::set<std::string> ExportedFiles(const std::string& out) {
  std::set<std::string> files;
  Result<std::string> text = ReadFile(out + "/index.json");
  if (!text.ok()) {
    return files;
  }
  const nlohmann::json index = nlohmann::json::parse(*text, nullptr, false);
  if (!index.is_array()) {
    return files;
  }
  for (const nlohmann::json& entry : index) {
    if (entry.is_object() && entry.contains("file") && entry["file"].is_string()) {
      const std::string file = entry["file"].get<std::string>();
      if (file == std::filesystem::path(file).filename().string() && file.ends_with(".py")) {
        files.insert(file);
      }
    }
  }
  return files;
}

// ISO 8601 in UTC, for a Trace's timestamp.
std::string IsoTime(int64_t unix_s) {
  const auto t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  (void)std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// A FlashInfer-Trace definition's best kernel as FlashInfer-Bench files under `out`: its
// Solution and its traces (task/flashinfer_solution.h). The relative paths written.
Result<std::pair<std::string, std::string>> ExportFlashInfer(
    const std::string& out, const SourceFile& definition, const RunInfo& run, int node,
    int64_t created_at, const EvalResult& result, const std::string& kernel) {
  const nlohmann::json environment = run.options.is_object() &&
                                             run.options.contains("environment") &&
                                             run.options["environment"].is_object()
                                         ? run.options["environment"]
                                         : nlohmann::json::object();
  // Each a string, or "" (a database anyone could have edited).
  const auto text = [&](const char* key) {
    return environment.contains(key) && environment[key].is_string()
               ? environment[key].get<std::string>()
               : std::string();
  };
  WorkerHello hello;
  hello.device_name = text("device");
  hello.torch = text("torch");
  hello.triton = text("triton");
  hello.python = text("python");
  const SolutionOrigin origin{.name = FlashInferSolutionName(definition, run.id, node),
                              .model = run.model,
                              .device = hello.device_name,
                              .on_gpu = text("device_kind") == "cuda",
                              .found = fmt::format("run {}, node {}", run.id, node),
                              .speedup = result.speedup};
  ASSIGN_OR_RETURN(const nlohmann::json solution,
                   FlashInferSolution(definition, kernel, result.facts, origin));
  const std::string solution_path = FlashInferSolutionPath(definition, origin.name);
  const std::string traces_path = FlashInferTracesPath(definition);
  RETURN_IF_ERROR(MakeDirectories(std::filesystem::path(out + "/" + solution_path).parent_path()));
  RETURN_IF_ERROR(MakeDirectories(std::filesystem::path(out + "/" + traces_path).parent_path()));
  RETURN_IF_ERROR(WriteFileAtomic(out + "/" + solution_path, JsonText(solution, 2) + "\n"));
  const SourceFile candidate{.path = solution_path, .name = origin.name, .source = solution.dump()};
  std::string lines;
  for (const nlohmann::json& line :
       FlashInferTraces(definition, candidate, result, hello, IsoTime(created_at))) {
    lines += JsonText(line) + "\n";
  }
  RETURN_IF_ERROR(WriteFileAtomic(out + "/" + traces_path, lines));
  return std::make_pair(solution_path, traces_path);
}

}  // namespace

Result<ExportOutcome> ExportBestKernels(const ExportRequest& request) {
  ASSIGN_OR_RETURN(RunDb db, RunDb::Open(request.db_path));
  ASSIGN_OR_RETURN(std::vector<RunInfo> runs, db.Runs());
  struct Best {
    int64_t run = 0;
    int node = 0;
    double speedup = 0;
    std::string kernel;
    nlohmann::json result;
    int64_t created_at = 0;
  };
  std::map<std::string, Best> best;
  std::map<std::string, bool> seen;
  std::map<std::string, SourceFile> sources;  // Each task as stored (its kind, its workloads).
  std::map<int64_t, RunInfo> run_infos;
  std::map<std::string, int> levels;  // Each task's, from the path it was read from.
  for (const RunInfo& run : runs) {
    if (request.run && run.id != *request.run) {
      continue;
    }
    run_infos[run.id] = run;
    ASSIGN_OR_RETURN(std::vector<TaskInfo> tasks, db.Tasks(run.id));
    for (const TaskInfo& task : tasks) {
      seen[task.name] = true;
      RETURN_IF_ERROR(ReadStoredJson(TaskFilesRow(run.id, task.name), "file", [&] {
        sources.insert_or_assign(task.name, TaskFromStored(task.name, task.source, task.file));
        return Status::Ok();
      }));
      if (task.file.is_object() && task.file.contains("path") && task.file["path"].is_string()) {
        if (const std::optional<int> level =
                KernelBenchTaskLevel(task.file["path"].get<std::string>())) {
          levels[task.name] = *level;
        }
      }
      ASSIGN_OR_RETURN(std::vector<StepRecord> steps, db.Steps(run.id, task.name));
      for (const StepRecord& step : steps) {
        if (!step.correct || !step.speedup || step.kernel.empty()) {
          continue;
        }
        auto it = best.find(task.name);
        if (it == best.end() || *step.speedup > it->second.speedup) {
          best[task.name] = {run.id,      step.node,   *step.speedup,
                             step.kernel, step.result, step.created_at};
        }
      }
    }
  }
  if (seen.empty()) {
    return NotFound(request.run ? fmt::format("no run {} in {}", *request.run, request.db_path)
                                : "no runs in " + request.db_path);
  }
  RETURN_IF_ERROR(MakeDirectories(request.out_dir));
  const std::set<std::string> earlier = ExportedFiles(request.out_dir);
  std::set<std::string> written;
  nlohmann::json index = nlohmann::json::array();
  std::vector<EvalResult> results;  // The exported kernels' verdicts, for eval_results.json.
  size_t exported = 0;
  for (const auto& [task, unused] : seen) {
    auto it = best.find(task);
    if (it == best.end()) {
      index.push_back({{"task", task}, {"file", nullptr}, {"note", "no correct kernel"}});
      continue;
    }
    EvalResult result;
    RETURN_IF_ERROR(ReadStoredJson(NodesRow(it->second.run, task, it->second.node), "result", [&] {
      result = EvalResultFromJson(it->second.result);
      return Status::Ok();
    }));
    if (sources.at(task).kind == TaskKind::kFlashInfer) {
      Result<std::pair<std::string, std::string>> paths =
          ExportFlashInfer(request.out_dir, sources.at(task), run_infos.at(it->second.run),
                           it->second.node, it->second.created_at, result, it->second.kernel);
      if (!paths.ok()) {
        index.push_back({{"task", task}, {"file", nullptr}, {"note", paths.status().message()}});
        continue;
      }
      ++exported;
      index.push_back({{"task", task},
                       {"file", paths->first},
                       {"traces", paths->second},
                       {"run", it->second.run},
                       {"node", it->second.node},
                       {"speedup", it->second.speedup}});
      continue;
    }
    const int level =
        request.level ? *request.level : (levels.contains(task) ? levels.at(task) : 0);
    const std::string file = KernelBenchKernelFile(task, level);
    RETURN_IF_ERROR(WriteFileAtomic(request.out_dir + "/" + file, it->second.kernel));
    written.insert(file);
    ++exported;
    result.task = task;  // Stored under the candidate's name; KernelBench keys by the problem.
    result.kernel_path = file;
    results.push_back(std::move(result));
    index.push_back({{"task", task},
                     {"file", file},
                     {"run", it->second.run},
                     {"node", it->second.node},
                     {"speedup", it->second.speedup}});
  }
  for (const std::string& stale : earlier) {
    if (!written.contains(stale)) {
      std::error_code ec;
      std::filesystem::remove(std::filesystem::path(request.out_dir) / stale, ec);
    }
  }
  RETURN_IF_ERROR(WriteFileAtomic(request.out_dir + "/index.json", JsonText(index, 2) + "\n"));
  RETURN_IF_ERROR(WriteFileAtomic(request.out_dir + "/eval_results.json",
                                  JsonText(KernelBenchResults(results), 4) + "\n"));
  return ExportOutcome{.exported = exported, .tasks = seen.size()};
}

}  // namespace adaexplore
