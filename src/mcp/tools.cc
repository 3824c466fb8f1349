#include "mcp/tools.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iterator>

#include "app/eval_requests.h"
#include "app/problem_selection.h"
#include "app/result_format.h"
#include "core/hash.h"
#include "core/json_text.h"
#include "sys/fs.h"
#include "task/problems.h"
#include "task/source_file.h"

namespace adaexplore {
namespace {

using nlohmann::json;

// The properties that name a task, shared by every tool that evaluates.
json TaskProperties() {
  return {
      {"task",
       {{"type", "string"},
        {"description",
         "Path of the task file: a KernelBench program (.py with Model, get_inputs, "
         "get_init_inputs), a FlashInfer-Trace definition (.json) or a TritonBench-G operator "
         "(.py). Or name it by level and problem."}}},
      {"level", {{"type", "integer"}, {"description", "KernelBench's level (1-4), with problem"}}},
      {"problem",
       {{"type", {"string", "integer"}},
        {"description",
         "The problem's number (KernelBench: the number its file name starts "
         "with; TritonBench-G: the reference release's id)"}}},
      {"suite",
       {{"type", "string"}, {"description", "kernelbench (default with level) or tritonbench-g"}}},
      {"suite_dir",
       {{"type", "string"},
        {"description", "The suite's folder (default $ADAEXPLORE_DATA/<suite>)"}}},
      {"workloads",
       {{"type", "string"},
        {"description",
         "FlashInfer-Trace definitions: the first N workloads, positions A-B, or "
         "uuids (default: all)"}}},
  };
}

// A tool's declaration: its arguments (`properties`; `any_of`: the alternatives of which one
// must be given, each a list of required names) and the shape of its structured result.
json Tool(const char* name, const char* title, const char* description, json properties,
          json any_of, json output) {
  json input = {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", json::array()}};
  if (!any_of.empty()) {
    json alternatives = json::array();
    for (const json& names : any_of) {
      alternatives.push_back({{"required", names}});
    }
    input["anyOf"] = std::move(alternatives);
  }
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(input)},
          {"outputSchema", std::move(output)}};
}

json Nullable(const char* type) { return {{"type", {type, "null"}}}; }

// The result of one evaluation (the JSON line of `eval --json`), as far as a client relies on it.
json ResultSchema() {
  json verdicts = json::array();
  for (Verdict verdict : AllVerdicts()) {
    verdicts.push_back(VerdictName(verdict));
  }
  json scopes = json::array();
  for (std::string_view scope : EnumNameList<TimingScope>()) {
    scopes.push_back(scope);
  }
  return {{"type", "object"},
          {"properties",
           {{"task", {{"type", "string"}}},
            {"kernel", {{"type", "string"}}},
            {"verdict", {{"type", "string"}, {"enum", verdicts}}},
            {"reason", {{"type", "string"}}},
            {"check", {{"type", "string"}}},
            {"speedup", Nullable("number")},
            {"scope", {{"type", "string"}, {"enum", scopes}}},
            {"speedup_call", Nullable("number")},
            {"speedup_kernel", Nullable("number")},
            {"speedup_compiled", Nullable("number")},
            {"sol_fraction", Nullable("number")},
            {"cached", {{"type", "boolean"}}},
            {"details", {{"type", "object"}}}}},
          {"required", {"task", "kernel", "verdict", "reason"}}};
}

Result<std::string> Text(const json& args, const char* key) {
  if (!args.contains(key)) {
    return std::string();
  }
  if (!args[key].is_string()) {
    return InvalidArgument(fmt::format("'{}' must be a string", key));
  }
  return args[key].get<std::string>();
}

// The problems the arguments name, as --level, --problem, --suite and --suite-dir would.
Result<ProblemSelection> ProblemOf(const json& args) {
  ProblemSelection problem;
  if (args.contains("problem") && args["problem"].is_number_integer()) {  // As agents send it.
    problem.problems = std::to_string(args["problem"].get<int64_t>());
  } else {
    ASSIGN_OR_RETURN(problem.problems, Text(args, "problem"));
  }
  ASSIGN_OR_RETURN(problem.suite, Text(args, "suite"));
  ASSIGN_OR_RETURN(problem.suite_dir, Text(args, "suite_dir"));
  if (args.contains("level")) {
    if (!args["level"].is_number_integer()) {
      return InvalidArgument("'level' must be an integer");
    }
    problem.level = args["level"].get<int>();
  }
  return problem;
}

// The task file the arguments name: a path, or a level and problem.
Result<std::string> TaskPath(const json& args) {
  ASSIGN_OR_RETURN(std::string task, Text(args, "task"));
  ASSIGN_OR_RETURN(const ProblemSelection problem, ProblemOf(args));
  if (!task.empty()) {
    if (!problem.problems.empty() || problem.level != 0) {
      return InvalidArgument("name the task by 'task' or by 'level' and 'problem', not both");
    }
    return task;
  }
  if (problem.problems.empty() && problem.level == 0 && problem.suite.empty()) {
    return InvalidArgument("no task: give 'task' (a path) or 'level' and 'problem'");
  }
  ASSIGN_OR_RETURN(std::vector<std::string> files, ProblemTaskFiles(problem, kProblemArguments));
  if (files.size() != 1) {
    return InvalidArgument(
        fmt::format("'problem' {} names {} tasks: name one", problem.problems, files.size()));
  }
  return files.front();
}

// Where the server writes kernels given as source text: results name them by their file's name.
constexpr std::string_view kSourceKernels = "/mcp-kernels/";

// A kernel given as source text, written where the evaluator reads it from, as `name`.py (the
// agent's name for it: letters, digits, '_', '-' and '.' kept; "kernel" when it gives none).
Result<std::string> WriteSource(const std::string& source, const std::string& scratch,
                                const std::string& name) {
  if (source.empty()) {
    return InvalidArgument("'source' is empty");
  }
  std::string file;
  for (char c : name.substr(0, 64)) {
    file +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ? c : '_';
  }
  if (file.ends_with(".py")) {
    file.resize(file.size() - 3);
  }
  if (file.empty() || file.find_first_not_of('.') == std::string::npos) {
    file = "kernel";
  }
  const std::string dir = scratch + std::string(kSourceKernels) + Sha256Hex(source).substr(0, 16);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return InternalError(fmt::format("cannot make {}: {}", dir, ec.message()));
  }
  const std::string path = dir + "/" + file + ".py";
  RETURN_IF_ERROR(WriteFileAtomic(path, source));
  return path;
}

// The evaluations of `kernels` (paths) against the task the arguments name.
Result<std::vector<EvalRequest>> Requests(const json& args,
                                          const std::vector<std::string>& kernels) {
  ASSIGN_OR_RETURN(const std::string task, TaskPath(args));
  RequestSources sources{.task = task, .kernels = kernels};
  ASSIGN_OR_RETURN(sources.workloads, Text(args, "workloads"));
  ASSIGN_OR_RETURN(CollectedRequests collected, CollectRequests(sources));
  if (!collected.unreadable.empty()) {
    return InvalidArgument(fmt::format("{}: {}", collected.unreadable.front().kernel_path,
                                       collected.unreadable.front().reason));
  }
  return collected.requests;
}

// The kernel of evaluate and profile: `kernel` (a path) or `source` (its text).
Result<std::string> OneKernel(const json& args, const std::string& scratch) {
  ASSIGN_OR_RETURN(const std::string path, Text(args, "kernel"));
  ASSIGN_OR_RETURN(const std::string source, Text(args, "source"));
  ASSIGN_OR_RETURN(const std::string name, Text(args, "name"));
  if (path.empty() == source.empty()) {
    return InvalidArgument("give the kernel as 'kernel' (a path) or 'source' (its text), one");
  }
  return path.empty() ? WriteSource(source, scratch, name) : Result<std::string>(path);
}

Result<std::vector<std::string>> TwoKernels(const json& args, const std::string& scratch) {
  for (const char* key : {"kernels", "sources"}) {
    if (args.contains(key) && (!args[key].is_array() || args[key].size() != 2 ||
                               !args[key][0].is_string() || !args[key][1].is_string())) {
      return InvalidArgument(fmt::format("'{}' must be two strings", key));
    }
  }
  if (args.contains("kernels") == args.contains("sources")) {
    return InvalidArgument("give the two kernels as 'kernels' (paths) or 'sources' (texts)");
  }
  if (args.contains("kernels")) {
    return std::vector<std::string>{args["kernels"][0], args["kernels"][1]};
  }
  if (args.contains("names") && (!args["names"].is_array() || args["names"].size() != 2 ||
                                 !args["names"][0].is_string() || !args["names"][1].is_string())) {
    return InvalidArgument("'names' must be two strings");
  }
  std::vector<std::string> paths;
  for (size_t i = 0; i < 2; ++i) {
    const std::string name =
        args.contains("names") ? args["names"][i].get<std::string>() : (i == 0 ? "a" : "b");
    ASSIGN_OR_RETURN(std::string path,
                     WriteSource(args["sources"][i].get<std::string>(), scratch, name));
    paths.push_back(std::move(path));
  }
  if (args["sources"][0] == args["sources"][1]) {
    return InvalidArgument("the two sources are the same kernel");
  }
  return paths;
}

Result<json> Problems(const json& args) {
  ASSIGN_OR_RETURN(const ProblemSelection problem, ProblemOf(args));
  std::vector<std::string> files;
  const bool show = !problem.problems.empty();
  if (show) {
    ASSIGN_OR_RETURN(files, ProblemTaskFiles(problem, kProblemArguments));
  } else if (problem.level != 0) {  // A KernelBench level: every file of its folder.
    std::string dir = problem.suite_dir;
    if (dir.empty()) {
      ASSIGN_OR_RETURN(dir, DefaultSuiteDir(kKernelBenchSuite));
    }
    ASSIGN_OR_RETURN(files, ListPythonFiles(fmt::format("{}/level{}", dir, problem.level)));
    // By problem number, as KernelBench numbers them (1, 2, ... 10, not 1, 10, 100, 11).
    const auto number = [](const std::string& path) {
      const std::string stem = std::filesystem::path(path).stem().string();
      int64_t n = INT64_MAX;  // A name without a number: after the numbered ones.
      std::from_chars(stem.data(), stem.data() + stem.size(), n);
      return n;
    };
    std::ranges::stable_sort(files, {}, number);
  } else {
    return InvalidArgument(
        "give 'level' (KernelBench) to list its problems, or 'problem' (with 'level' or "
        "'suite': tritonbench-g) to show them");
  }
  json list = json::array();
  std::string text;
  for (const std::string& path : files) {
    json entry = {{"name", std::filesystem::path(path).stem().string()}, {"path", path}};
    text += entry["name"].get<std::string>() + "  " + path + "\n";
    if (show) {
      ASSIGN_OR_RETURN(SourceFile file, ReadSourceFile(path));
      entry["source"] = file.source;
      text += file.source + "\n";
    }
    list.push_back(std::move(entry));
  }
  return json{{"content", {{{"type", "text"}, {"text", text}}}},
              {"structuredContent", {{"problems", list}}},
              {"isError", false}};
}

// A file that does not parse as Python is not shown back to the client: a SyntaxError's
// traceback quotes the offending line, and a path the client names may be any file the server
// can read (/etc/shadow as a "kernel"). The verdict, the error's type and line number stay.
EvalResult WithoutUnparsedText(EvalResult r) {
  if (!r.facts.is_object() || !r.facts.contains("error") || !r.facts["error"].is_object()) {
    return r;
  }
  json& error = r.facts["error"];
  const std::string type = error.value("type", "");
  static const std::array<std::string_view, 4> kUnparsed = {"SyntaxError", "IndentationError",
                                                            "TabError", "UnicodeDecodeError"};
  if (std::ranges::find(kUnparsed, type) == kUnparsed.end()) {
    return r;
  }
  const std::string message = error.value("message", "");
  const std::string hidden = type +
                             ": the file does not parse as Python, so its text is not shown (" +
                             message.substr(0, message.find('\n')) + ")";
  r.error_text = hidden;
  error["traceback"] = hidden;
  r.stderr_tail.clear();
  r.facts.erase("stderr");
  return r;
}

// A kernel the client gave as source text is named in results by the name it gave, not by the
// server's scratch file.
EvalResult Shown(EvalResult r) {
  if (r.kernel_path.find(kSourceKernels) != std::string::npos) {
    r.kernel_path = std::filesystem::path(r.kernel_path).filename().string();
  }
  return WithoutUnparsedText(std::move(r));
}

json ProfileObject(const EvalResult& r) {
  const auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  return {{"kernel", r.kernel_path},
          {"task", r.task},
          {"verdict", VerdictName(r.verdict)},
          {"reason", r.reason},
          {"speedup", optional(r.speedup)},
          {"sol_fraction", optional(r.sol_fraction)},
          {"speed_of_light_ms", optional(r.speed_of_light_ms)},
          {"bottleneck", r.bottleneck.empty() ? json() : json(r.bottleneck)},
          {"profile", r.profile_text},
          {"unavailable", r.verdict == Verdict::kCorrect
                              ? r.profile_unavailable
                              : "not correct: only a correct kernel is profiled"}};
}

}  // namespace

json McpToolList() {
  json kernel = TaskProperties();
  kernel["kernel"] = {{"type", "string"}, {"description", "Path of the candidate kernel file"}};
  kernel["source"] = {{"type", "string"},
                      {"description", "The candidate kernel's source text (instead of kernel)"}};
  kernel["name"] = {{"type", "string"},
                    {"description", "What results call a `source` kernel (default: kernel)"}};
  json two = TaskProperties();
  two["kernels"] = {{"type", "array"},
                    {"items", {{"type", "string"}}},
                    {"minItems", 2},
                    {"maxItems", 2},
                    {"description", "Paths of the two kernels"}};
  two["sources"] = {{"type", "array"},
                    {"items", {{"type", "string"}}},
                    {"minItems", 2},
                    {"maxItems", 2},
                    {"description", "Source texts of the two kernels (instead of kernels)"}};
  two["names"] = {{"type", "array"},
                  {"items", {{"type", "string"}}},
                  {"minItems", 2},
                  {"maxItems", 2},
                  {"description", "What results call the two `sources` (default: a, b)"}};
  json problems = {
      {"level", {{"type", "integer"}, {"description", "KernelBench's level: list its problems"}}},
      {"problem",
       {{"type", {"string", "integer"}},
        {"description", "Show these problems' sources: 40, 1-10 or 1,4,9"}}},
      {"suite",
       {{"type", "string"}, {"description", "kernelbench (default with level) or tritonbench-g"}}},
      {"suite_dir", {{"type", "string"}, {"description", "The suite's folder"}}}};
  // A task by path or by level and problem (or a TritonBench-G problem by suite); a kernel by
  // path or by source: one of each.
  const json task_ways = json::array({json::array({"task"}), json::array({"level", "problem"}),
                                      json::array({"suite", "problem"})});
  json one_kernel = json::array();
  json two_kernels = json::array();
  for (const json& way : task_ways) {
    for (const char* k : {"kernel", "source"}) {
      json names = way;
      names.push_back(k);
      one_kernel.push_back(names);
    }
    for (const char* k : {"kernels", "sources"}) {
      json names = way;
      names.push_back(k);
      two_kernels.push_back(names);
    }
  }
  const json compared = {
      {"type", "object"},
      {"properties",
       {{"a", ResultSchema()}, {"b", ResultSchema()}, {"b_over_a", Nullable("number")}}},
      {"required", {"a", "b", "b_over_a"}}};
  const json profiled = {{"type", "object"},
                         {"properties",
                          {{"kernel", {{"type", "string"}}},
                           {"task", {{"type", "string"}}},
                           {"verdict", {{"type", "string"}}},
                           {"reason", {{"type", "string"}}},
                           {"speedup", Nullable("number")},
                           {"sol_fraction", Nullable("number")},
                           {"speed_of_light_ms", Nullable("number")},
                           {"bottleneck", Nullable("string")},
                           {"profile", {{"type", "string"}}},
                           {"unavailable", {{"type", "string"}}}}},
                         {"required", {"kernel", "task", "verdict", "unavailable"}}};
  const json listed = {{"type", "object"},
                       {"properties",
                        {{"problems",
                          {{"type", "array"},
                           {"items",
                            {{"type", "object"},
                             {"properties",
                              {{"name", {{"type", "string"}}},
                               {"path", {{"type", "string"}}},
                               {"source", {{"type", "string"}}}}},
                             {"required", {"name", "path"}}}}}}}},
                       {"required", {"problems"}}};
  return json::array(
      {Tool("evaluate", "Evaluate a kernel",
            "Judge a candidate kernel against its task as `adaexplore eval` does: correct, "
            "incorrect, rejected (a reward hack, naming the check), compile or runtime error, "
            "timeout; and for a correct one its speedup over PyTorch eager in call time and in "
            "kernel time. Results are cached by content: asking again costs nothing.",
            kernel, one_kernel, ResultSchema()),
       Tool("compare", "Compare two kernels",
            "Judge two kernels on one task, each timed interleaved with the reference; both "
            "results and the ratio of their speedups (b over a).",
            two, two_kernels, compared),
       Tool("profile", "Why a kernel is slow",
            "A correct kernel's fraction of the speed of light and its bottleneck class "
            "(docs/profiling.md); says why when there is none.",
            kernel, one_kernel, profiled),
       Tool("problems", "List or show problems",
            "The problems of a KernelBench level, or the sources of the problems named.", problems,
            json::array({json::array({"level"}), json::array({"problem"})}), listed)});
}

// An argument the tool does not declare is refused with the ones it does (a `profile` key was
// once ignored, and the kernel judged under strict).
Status KnownArguments(const std::string& tool, const json& args) {
  for (const json& declared : McpToolList()) {
    if (declared["name"] != tool) {
      continue;
    }
    const json& properties = declared["inputSchema"]["properties"];
    for (const auto& [key, value] : args.items()) {
      if (!properties.contains(key)) {
        std::vector<std::string> known;
        for (const auto& [name, schema] : properties.items()) {
          known.push_back(name);
        }
        return InvalidArgument(fmt::format("{} has no argument '{}' (its arguments: {})", tool, key,
                                           fmt::join(known, ", ")));
      }
    }
  }
  return Status::Ok();
}

Result<ToolPlan> PlanTool(const std::string& tool, const json& arguments,
                          const std::string& scratch) {
  const json args = arguments.is_object() ? arguments : json::object();
  RETURN_IF_ERROR(KnownArguments(tool, args));
  if (tool == "problems") {
    ASSIGN_OR_RETURN(json result, Problems(args));
    return ToolPlan{.result = std::move(result)};
  }
  if (tool == "evaluate" || tool == "profile") {
    ASSIGN_OR_RETURN(const std::string kernel, OneKernel(args, scratch));
    ASSIGN_OR_RETURN(std::vector<EvalRequest> requests, Requests(args, {kernel}));
    return ToolPlan{.requests = std::move(requests)};
  }
  if (tool == "compare") {
    ASSIGN_OR_RETURN(const std::vector<std::string> kernels, TwoKernels(args, scratch));
    ASSIGN_OR_RETURN(std::vector<EvalRequest> requests, Requests(args, kernels));
    return ToolPlan{.requests = std::move(requests)};
  }
  return NotFound(fmt::format("no tool '{}' (tools: evaluate, compare, profile, problems)", tool));
}

json ToolResult(const std::string& tool, const std::vector<EvalResult>& evaluated) {
  std::vector<EvalResult> results;
  std::ranges::transform(evaluated, std::back_inserter(results), Shown);
  json structured;
  std::string text;
  for (const EvalResult& r : results) {
    text += FormatHuman(r, Detail::kFull);
  }
  if (tool == "profile" && !results.empty()) {
    structured = ProfileObject(results.front());
    const EvalResult& r = results.front();
    text += r.profile_text.empty() ? "no profile: " + structured["unavailable"].get<std::string>()
                                   : "profile: " + r.profile_text;
    text += "\n";
  } else if (tool == "compare" && results.size() == 2) {
    const std::optional<double>& a = results[0].speedup;
    const std::optional<double>& b = results[1].speedup;
    structured = {{"a", ResultJson(results[0])},
                  {"b", ResultJson(results[1])},
                  {"b_over_a", a && b && *a > 0 ? json(*b / *a) : json()}};
    text += a && b && *a > 0 ? fmt::format("b is {:.3g}x a\n", *b / *a)
                             : "no ratio: both kernels must be correct and timed\n";
  } else if (!results.empty()) {
    structured = ResultJson(results.front());
  }
  return {{"content", {{{"type", "text"}, {"text", text}}}},
          {"structuredContent", structured},
          {"isError", false}};
}

json ToolErrorResult(const std::string& message) {
  return {{"content", {{{"type", "text"}, {"text", message}}}}, {"isError", true}};
}

}  // namespace adaexplore
