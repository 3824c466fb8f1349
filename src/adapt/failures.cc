#include "adapt/failures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "adapt/signature.h"
#include "eval/verdict.h"
#include "store/db.h"

namespace adaexplore {

Result<std::vector<Failure>> ReadFailures(const std::string& path, const FailureFilter& filter) {
  ASSIGN_OR_RETURN(Db db, Db::Open(path));
  std::vector<Verdict> wanted = {Verdict::kCompileError, Verdict::kRuntimeError};
  if (filter.include_incorrect) {
    wanted.push_back(Verdict::kIncorrect);
  }
  std::string verdicts;
  for (Verdict verdict : wanted) {
    verdicts += fmt::format("{}'{}'", verdicts.empty() ? "" : ", ", VerdictName(verdict));
  }
  ASSIGN_OR_RETURN(Statement select,
                   db.Prepare(fmt::format(
                       "SELECT n.run_id, n.task, n.node, n.verdict, n.reason, n.kernel, n.result, "
                       "r.model FROM nodes n JOIN runs r ON r.id = n.run_id "
                       "WHERE n.verdict IN ({}) AND (? = 0 OR n.run_id = ?) "
                       "ORDER BY n.run_id, n.task, n.node",
                       verdicts)));
  const int64_t run = filter.run.value_or(0);
  select.Bind(1, run).Bind(2, run);
  std::vector<Failure> failures;
  while (true) {
    ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) {
      break;
    }
    Failure f{.task = select.ColumnText(1),
              .model = select.ColumnText(7),
              .verdict = select.ColumnText(3),
              .kernel = select.ColumnText(5),
              .source = fmt::format("run {} node {}", select.ColumnInt(0), select.ColumnInt(2))};
    const nlohmann::json result = nlohmann::json::parse(select.ColumnText(6), nullptr, false);
    if (result.is_object() && result.contains("error") && result["error"].is_string()) {
      f.error = result["error"].get<std::string>();
    }
    if (f.error.empty()) {
      f.error = select.ColumnText(4);
    }
    f.signature = ErrorSignature(f.error);
    failures.push_back(std::move(f));
  }
  return failures;
}

namespace {

// A signature whose message has no words ("CompilationError: ^", a log that kept only the
// caret line) says nothing about the mistake: such failures are not grouped.
bool Informative(const std::string& signature) {
  const size_t colon = signature.find(": ");
  const std::string message = colon == std::string::npos ? signature : signature.substr(colon + 2);
  return std::count_if(message.begin(), message.end(),
                       [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }) >= 2;
}

}  // namespace

std::vector<FailureCluster> ClusterFailures(std::vector<Failure> failures) {
  std::vector<Failure> kept;
  std::vector<std::string> signatures;
  for (Failure& f : failures) {
    if (f.signature.empty()) {
      f.signature = ErrorSignature(f.error);
    }
    if (f.signature.empty()) {
      continue;
    }
    signatures.push_back(Informative(f.signature)
                             ? f.signature
                             : f.signature + " #" + std::to_string(signatures.size()));
    kept.push_back(std::move(f));
  }
  std::vector<FailureCluster> clusters;
  for (const SignatureGroup& group : GroupBySignature(signatures)) {
    FailureCluster cluster{.signature = kept[group.members.front()].signature, .failures = {}};
    for (size_t i : group.members) {
      cluster.failures.push_back(std::move(kept[i]));
    }
    clusters.push_back(std::move(cluster));
  }
  return clusters;
}

}  // namespace adaexplore
