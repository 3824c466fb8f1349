#include "app/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>

#include "app/run_setup.h"
#include "core/json_text.h"
#include "report/flashinfer_traces.h"
#include "report/kernelbench_results.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

// Each result's FlashInfer Trace lines, written as the result comes, so an interrupted
// evaluation keeps the traces of what finished.
class TraceWriter {
 public:
  static Result<TraceWriter> Open(const std::string& path, WorkerHello hello) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) {
      return InvalidArgument(fmt::format("--traces {}: {}", path, std::strerror(errno)));
    }
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    (void)gmtime_r(&now, &utc);
    TraceWriter writer(file, std::move(hello));
    (void)std::strftime(writer.stamp_.data(), writer.stamp_.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return writer;
  }

  void Add(const EvalRequest& request, const EvalResult& result) {
    for (const nlohmann::json& line :
         FlashInferTraces(request.task, request.candidate, result, hello_, stamp_.data())) {
      (void)std::fputs((JsonText(line) + "\n").c_str(), file_.get());
    }
    (void)std::fflush(file_.get());
  }

 private:
  struct Close {
    void operator()(std::FILE* f) const { (void)std::fclose(f); }
  };
  TraceWriter(std::FILE* file, WorkerHello hello) : file_(file), hello_(std::move(hello)) {}

  std::unique_ptr<std::FILE, Close> file_;
  WorkerHello hello_;
  std::array<char, 32> stamp_{};
};

// KernelBench's eval_results.json of `results`, with an empty list for each problem asked for
// that had no sample.
Status WriteKernelBenchResults(const std::string& path, const std::vector<EvalResult>& results,
                               const std::vector<MissingProblem>& missing) {
  nlohmann::json file = KernelBenchResults(results);
  for (const MissingProblem& m : missing) {
    const std::string key = KernelBenchProblemKey(std::filesystem::path(m.task).stem().string());
    if (!file.contains(key)) {
      file[key] = nlohmann::json::array();
    }
  }
  return WriteFileAtomic(path, JsonText(file, 4) + "\n");
}

}  // namespace

bool EvaluateOutcome::Complete() const {
  const bool unevaluated =
      std::any_of(results.begin(), results.begin() + static_cast<std::ptrdiff_t>(judged),
                  [](const EvalResult& r) {
                    return r.verdict == Verdict::kError || r.verdict == Verdict::kTaskError;
                  });
  return judged > 0 && !unevaluated && judged == results.size() && missing.empty();
}

Result<EvaluateOutcome> Evaluate(Config& config, const EvaluateRequest& request,
                                 const EvaluateEvents& events, const Logger& logger,
                                 const InterruptGuard& guard) {
  ASSIGN_OR_RETURN(CollectedRequests collected, CollectRequests(request.sources));
  if (events.collected) {
    events.collected(collected);
  }
  EvaluateOutcome outcome;
  outcome.missing = collected.missing;
  const std::vector<EvalRequest>& requests = collected.requests;
  if (requests.empty()) {  // Every candidate was unreadable.
    outcome.results = collected.unreadable;
    return outcome;
  }
  ASSIGN_OR_RETURN(TempDir scratch, TempDir::Create("adaexplore-run-"));
  const std::string scratch_path = scratch.path();
  ASSIGN_OR_RETURN(std::unique_ptr<Evaluator> evaluator,
                   StartEvaluator(config, request.refresh_cache, logger, scratch, guard,
                                  [&events](const std::string& job, const std::string& phase) {
                                    if (events.phase) {
                                      events.phase(job, phase);
                                    }
                                  }));
  if (events.started) {
    events.started(*evaluator, requests);
  }
  if (events.workload) {
    evaluator->ObserveWorkloads(events.workload);
  }
  std::optional<TraceWriter> traces;
  if (!request.traces_path.empty()) {
    ASSIGN_OR_RETURN(traces, TraceWriter::Open(request.traces_path, evaluator->workers().front()));
  }
  ASSIGN_OR_RETURN(outcome.results, evaluator->Run(
                                        requests,
                                        [&](size_t i, const EvalResult& r) {
                                          if (events.result) {
                                            events.result(i, r);
                                          }
                                          if (traces) {
                                            traces->Add(requests[i], r);
                                          }
                                        },
                                        &guard));
  outcome.judged = outcome.results.size();
  outcome.results.insert(outcome.results.end(), collected.unreadable.begin(),
                         collected.unreadable.end());
  if (!request.kernelbench_results_path.empty()) {
    RETURN_IF_ERROR(WriteKernelBenchResults(request.kernelbench_results_path, outcome.results,
                                            outcome.missing));
  }
  const bool harness_errors =
      std::any_of(outcome.results.begin(), outcome.results.end(),
                  [](const EvalResult& r) { return r.verdict == Verdict::kError; });
  if (harness_errors) {
    scratch.Release();  // The worker logs explain them.
    outcome.worker_logs = scratch_path;
  }
  return outcome;
}

}  // namespace adaexplore
