// bench/eval_repeatability: evaluates the same candidates R times (cache off) and reports how
// much the timings move between evaluations: the CV of the candidate's median time, of the
// reference's, and of the speedup, across the R evaluations, beside the CV within one evaluation.
//
//   eval_repeatability --tasks-dir T --kernels-dir K --repeat 5 [--json-out F]

#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "bench/bench_common.h"
#include "sys/fs.h"
#include "sys/signals.h"

namespace adaexplore::bench {
namespace {

Result<int> Main(int argc, char** argv) {
  CLI::App app{"Repeatability of timings across evaluations of the same candidates"};
  BenchFlags flags;
  int repeat = 5;
  AddCommonFlags(app, flags);
  app.add_option("--repeat", repeat, "Evaluations of each candidate");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  InterruptGuard guard;
  ASSIGN_OR_RETURN(BenchSetup setup, SetUp(flags));
  const std::vector<EvalRequest>& requests = setup.requests;
  ASSIGN_OR_RETURN(std::unique_ptr<Evaluator> evaluator, setup.StartEvaluator(guard));
  struct Series {
    std::vector<double> candidate_ms, reference_ms, speedup, within_cv;
    int incorrect = 0;
  };
  std::map<std::string, Series> series;
  for (int r = 0; r < repeat; ++r) {
    (void)std::fprintf(stderr, "evaluation %d of %d\n", r + 1, repeat);
    ASSIGN_OR_RETURN(std::vector<EvalResult> results, evaluator->Run(requests, nullptr, &guard));
    for (const EvalResult& e : results) {
      Series& s = series[e.kernel_path];
      if (e.verdict != Verdict::kCorrect || !e.speedup || !e.candidate_timing ||
          !e.reference_timing) {
        ++s.incorrect;
        continue;
      }
      s.candidate_ms.push_back(e.candidate_timing->median_ms);
      s.reference_ms.push_back(e.reference_timing->median_ms);
      s.speedup.push_back(*e.speedup);
      s.within_cv.push_back(e.candidate_timing->cv);
    }
  }
  std::printf("\neval_repeatability: %d evaluations of each candidate on %s\n", repeat,
              evaluator->workers().front().device_name.c_str());
  std::printf("%-58s %9s %9s %9s %9s %9s\n", "candidate", "kernel ms", "CV kern", "CV ref",
              "speedup", "CV spdup");
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> all_cv;
  for (const auto& [path, s] : series) {
    if (s.candidate_ms.size() < 2) {
      continue;
    }
    const Spread c = SpreadOf(s.candidate_ms), ref = SpreadOf(s.reference_ms),
                 sp = SpreadOf(s.speedup), within = SpreadOf(s.within_cv);
    all_cv.push_back(c.cv);
    std::string name = path.size() > 58 ? "..." + path.substr(path.size() - 55) : path;
    std::printf("%-58s %9.4f %8.2f%% %8.2f%% %9.3f %8.2f%%\n", name.c_str(), c.mean, 100 * c.cv,
                100 * ref.cv, sp.mean, 100 * sp.cv);
    rows.push_back({{"kernel", path},
                    {"evaluations", s.candidate_ms.size()},
                    {"candidate_median_ms", s.candidate_ms},
                    {"reference_median_ms", s.reference_ms},
                    {"speedups", s.speedup},
                    {"cv_candidate_across", c.cv},
                    {"cv_reference_across", ref.cv},
                    {"cv_speedup_across", sp.cv},
                    {"mean_cv_within", within.mean}});
  }
  std::sort(all_cv.begin(), all_cv.end());
  if (!all_cv.empty()) {
    std::printf(
        "candidates: %zu; CV of the kernel's median across evaluations: median %.2f%%, "
        "max %.2f%%\n",
        all_cv.size(), 100 * all_cv[all_cv.size() / 2], 100 * all_cv.back());
  }
  RETURN_IF_ERROR(WriteJson(flags, {{"repeat", repeat}, {"rows", rows}}));
  return 0;
}

}  // namespace
}  // namespace adaexplore::bench

int main(int argc, char** argv) {
  return adaexplore::bench::RunMain("eval_repeatability", adaexplore::bench::Main, argc, argv);
}
