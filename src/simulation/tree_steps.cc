#include "simulation/tree_steps.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "sys/fs.h"

namespace adaexplore {

namespace {

namespace fs = std::filesystem;

struct RawNode {
  bool correct = false;
  double speedup = 0;
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// One step of a tree file; `nodes` holds the steps before it.
Result<TreeStep> ParseStep(const nlohmann::json& step, const std::map<int, RawNode>& nodes,
                           double best) {
  const std::string by = step.at("created_by").get<std::string>();
  if (by != "small_step" && by != "large_step") {
    return Status(StatusCode::kParseError, "created_by is \"" + by + "\"");
  }
  TreeStep out{.kind = by == "small_step" ? MoveKind::kSmall : MoveKind::kLarge};
  const auto parent = nodes.find(step.at("parent_node_id").get<int>());
  if (parent == nodes.end()) {
    return Status(StatusCode::kParseError, "its parent is not an earlier step");
  }
  std::vector<double> shown;
  for (int id : step.at("context_node_ids").get<std::vector<int>>()) {
    const auto node = nodes.find(id);
    if (node == nodes.end()) {
      return Status(StatusCode::kParseError, "its context names a node that is not earlier");
    }
    if (node->second.correct) {
      shown.push_back(node->second.speedup);
    }
  }
  const StepBase base =
      BaseOf(out.kind,
             parent->second.correct ? std::optional(parent->second.speedup) : std::nullopt, shown);
  out.cell = base.cell;
  out.base = base.speedup;
  if (out.base) {
    out.gap = GapOf(*out.base, best);
  }
  const nlohmann::json& score = step.at("score");
  if (score.at("correct").get<bool>()) {
    out.verdict = StepVerdict::kCorrect;
    out.speedup = score.at("fast_p").get<double>();
    if (!(out.speedup > 0)) {
      return Status(StatusCode::kParseError, "a correct step without a positive speedup");
    }
  } else {
    const bool wrong = score.at("compiled").get<bool>() && step.contains("error") &&
                       step["error"].is_string() && step["error"] == "incorrect output";
    out.verdict = wrong ? StepVerdict::kWrong : StepVerdict::kError;
  }
  return out;
}

}  // namespace

BaseGap GapOf(double base, double best) {
  if (base >= best) {
    return BaseGap::kBest;
  }
  return base >= kNearBest * best ? BaseGap::kNear : BaseGap::kFar;
}

BaseProgress ProgressOf(double base, double fresh_scale) {
  return base >= kAdvancedFrom * fresh_scale ? BaseProgress::kAdvanced : BaseProgress::kEarly;
}

StepBase BaseOf(MoveKind kind, std::optional<double> parent_speedup,
                const std::vector<double>& shown) {
  const std::optional<double> best_shown =
      shown.empty() ? std::nullopt : std::optional(*std::max_element(shown.begin(), shown.end()));
  if (kind == MoveKind::kSmall) {
    return parent_speedup ? StepBase{StepCell::kSmallFromCorrect, parent_speedup}
                          : StepBase{StepCell::kSmallFromFailed, best_shown};
  }
  return best_shown ? StepBase{StepCell::kLargeWithPool, best_shown}
                    : StepBase{StepCell::kLargeFresh, std::nullopt};
}

Result<TreeSteps> ReadTreeSteps(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  TreeSteps tree{.name = fs::path(path).stem().string()};
  const auto fail = [&](const std::string& why) {
    return Status(StatusCode::kParseError, path + ": " + why);
  };
  try {
    const nlohmann::json json = nlohmann::json::parse(text);
    std::map<int, RawNode> nodes;
    double best = 0;
    std::vector<double> fresh;
    for (const nlohmann::json& step : json.at("steps")) {
      const int id = step.at("node_id").get<int>();
      if (step.at("created_by") == "dummy_root") {
        nodes[id] = {};
        continue;
      }
      Result<TreeStep> parsed = ParseStep(step, nodes, best);
      if (!parsed.ok()) {
        return fail("step " + std::to_string(id) + ": " + parsed.status().message());
      }
      const TreeStep& s = *parsed;
      nodes[id] = {.correct = s.verdict == StepVerdict::kCorrect, .speedup = s.speedup};
      if (s.verdict == StepVerdict::kCorrect) {
        best = std::max(best, s.speedup);
        if (!s.base) {
          fresh.push_back(s.speedup);
        }
      }
      tree.steps.push_back(s);
    }
    if (!fresh.empty()) {
      tree.fresh_scale = Median(fresh);
      tree.headroom = std::max(1.0, best / *tree.fresh_scale);
      for (TreeStep& step : tree.steps) {
        if (step.base) {
          step.progress = ProgressOf(*step.base, *tree.fresh_scale);
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("not a search tree: ") + e.what());
  }
  if (tree.steps.empty()) {
    return fail("no steps");
  }
  return tree;
}

Result<std::vector<TreeSteps>> ReadTreeFolder(const std::string& folder) {
  std::vector<std::string> paths;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().extension() == ".json" && entry.path().filename() != "index.json") {
      paths.push_back(entry.path().string());
    }
  }
  if (error) {
    return Status(StatusCode::kIoError, folder + ": " + error.message());
  }
  if (paths.empty()) {
    return Status(StatusCode::kNotFound, folder + " holds no search tree (*.json)");
  }
  std::sort(paths.begin(), paths.end());
  std::vector<TreeSteps> trees;
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(TreeSteps tree, ReadTreeSteps(path));
    trees.push_back(std::move(tree));
  }
  return trees;
}

}  // namespace adaexplore
