#pragma once

// Worker facts for tests of what the C++ side makes of them (classification, the evaluator):
// the shapes a worker sends for a passing trial and for timed runs (docs/protocol.md).

#include <nlohmann/json.hpp>

namespace adaexplore::test_facts {

// One correctness trial that passed with tiny errors on outputs of magnitude 2.
inline nlohmann::json PassingTrial(int index) {
  return {{"index", index},
          {"distribution", "task"},
          {"passed", true},
          {"inputs_mutated", nlohmann::json::array()},
          {"outputs",
           {{{"form", {{"problems", nlohmann::json::array()}, {"exact_tensor", true}}},
             {"values",
              {{"passed", true},
               {"max_abs_err", 1e-7},
               {"max_rel_err", 1e-6},
               {"ref_max_abs", 2.0}}}}}}};
}

// Twenty timed runs of each side, all re-validated, on the GPU timeline too (their GPU times
// the events' own, nothing outside them).
inline nlohmann::json Timing(double candidate_ms, double reference_ms) {
  nlohmann::json c = nlohmann::json::array(), r = nlohmann::json::array();
  for (int i = 0; i < 20; ++i) {
    c.push_back(candidate_ms);
    r.push_back(reference_ms);
  }
  return {{"candidate_ms", c},
          {"reference_ms", r},
          {"candidate_gpu_ms", c},
          {"reference_gpu_ms", r},
          {"gpu_outside_us", 0.0},
          {"gpu_outside_records", 0},
          {"meaningful", true},
          {"revalidated", 20},
          {"revalidation_failures", 0},
          {"inputs_mutated_runs", 0}};
}

// A correct candidate, `reference_ms / candidate_ms` times faster.
inline nlohmann::json CorrectFacts(double candidate_ms = 0.5, double reference_ms = 1.5) {
  return {{"status", "ok"},
          {"trials", {PassingTrial(0), PassingTrial(1)}},
          {"determinism", {{"passed", true}}},
          {"flags_changed_by_import", nlohmann::json::array()},
          {"timing", Timing(candidate_ms, reference_ms)}};
}

}  // namespace adaexplore::test_facts
