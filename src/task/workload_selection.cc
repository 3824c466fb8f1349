#include "task/workload_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>
#include <vector>

#include "core/json_text.h"

namespace adaexplore {
namespace {

std::optional<size_t> Number(std::string_view text) {
  size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

std::string Uuid(const nlohmann::json& workload) {
  return workload.is_object() && workload.contains("uuid") && workload["uuid"].is_string()
             ? workload["uuid"].get<std::string>()
             : "";
}

// The positions (from 0) `spec` selects among `workloads`.
Result<std::set<size_t>> Selected(const std::string& spec,
                                  const std::vector<nlohmann::json>& workloads,
                                  const std::string& task) {
  const size_t n = workloads.size();
  std::set<size_t> chosen;
  if (const std::optional<size_t> first = Number(spec)) {
    for (size_t i = 0; i < std::min(*first, n); ++i) {
      chosen.insert(i);
    }
    return chosen;
  }
  if (const size_t dash = spec.find('-'); dash != std::string::npos) {
    const std::optional<size_t> a = Number(std::string_view(spec).substr(0, dash));
    const std::optional<size_t> b = Number(std::string_view(spec).substr(dash + 1));
    if (a && b) {
      if (*a < 1 || *b < *a) {
        return InvalidArgument(
            fmt::format("--workloads {}: a range runs from 1 upwards (A-B, A <= B)", spec));
      }
      for (size_t i = *a - 1; i < std::min(*b, n); ++i) {
        chosen.insert(i);
      }
      return chosen;
    }
  }
  std::string_view rest = spec;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string item(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) {
      continue;
    }
    const auto by_uuid = std::find_if(workloads.begin(), workloads.end(),
                                      [&](const nlohmann::json& w) { return Uuid(w) == item; });
    if (by_uuid != workloads.end()) {
      chosen.insert(static_cast<size_t>(by_uuid - workloads.begin()));
    } else if (const std::optional<size_t> at = Number(item); at && *at >= 1 && *at <= n) {
      chosen.insert(*at - 1);
    } else {
      std::string uuids;
      for (size_t i = 0; i < n && i < 5; ++i) {
        uuids += (uuids.empty() ? "" : ", ") + Uuid(workloads[i]);
      }
      return InvalidArgument(fmt::format(
          "--workloads: {} has no workload '{}' (its {} workload(s): positions 1-{}, uuids {}{})",
          task, item, n, n, uuids, n > 5 ? ", ..." : ""));
    }
  }
  return chosen;
}

}  // namespace

Status SelectWorkloads(const std::string& spec, SourceFile& task) {
  if (spec.empty() || task.workloads.empty()) {
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(const std::set<size_t> chosen, Selected(spec, task.workloads, task.name));
  if (chosen.empty()) {
    return InvalidArgument(fmt::format("--workloads {} selects none of {}'s {} workload(s)", spec,
                                       task.name, task.workloads.size()));
  }
  if (chosen.size() < task.workloads.size()) {
    task.workloads_total = std::max(task.workloads_total, task.workloads.size());
  }
  std::vector<nlohmann::json> kept;
  std::vector<nlohmann::json> left_out;
  for (size_t i = 0; i < task.workloads.size(); ++i) {
    (chosen.contains(i) ? kept : left_out).push_back(std::move(task.workloads[i]));
  }
  task.check_workloads = CheckWorkloads(kept, left_out);
  task.workloads = std::move(kept);
  return Status::Ok();
}

std::vector<nlohmann::json> CheckWorkloads(const std::vector<nlohmann::json>& kept,
                                           const std::vector<nlohmann::json>& left_out) {
  std::set<std::string> kept_axes;
  for (const nlohmann::json& w : kept) {
    kept_axes.insert(JsonText(w.value("axes", nlohmann::json::object())));
  }
  std::vector<std::pair<double, const nlohmann::json*>> others;
  std::set<std::string> seen;
  for (const nlohmann::json& w : left_out) {
    const nlohmann::json axes =
        w.is_object() ? w.value("axes", nlohmann::json::object()) : nlohmann::json::object();
    if (!axes.is_object() || kept_axes.contains(JsonText(axes)) ||
        !seen.insert(JsonText(axes)).second) {
      continue;
    }
    double product = 1;
    for (const auto& [axis, value] : axes.items()) {
      if (value.is_number_integer()) {
        product *= static_cast<double>(value.get<int64_t>());
      }
    }
    others.emplace_back(product, &w);
  }
  std::ranges::stable_sort(others, {}, &std::pair<double, const nlohmann::json*>::first);
  std::vector<nlohmann::json> chosen;
  if (!others.empty()) {
    chosen.push_back(*others.front().second);
  }
  if (others.size() > 1) {
    chosen.push_back(*others[others.size() / 2].second);
  }
  return chosen;
}

}  // namespace adaexplore
