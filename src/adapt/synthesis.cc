#include "adapt/synthesis.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/hash.h"
#include "core/nonce.h"
#include "core/secrets.h"
#include "core/text.h"
#include "edits/code_block.h"
#include "sys/fs.h"
#include "sys/process.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

constexpr int kExamplesPerPrompt = 3;
constexpr int kLayersPerPrompt = 3;
constexpr int kCallsPerTask = 3;
constexpr const char* kCheckPrefix = "ADAEXPLORE_CHECK ";

// The code without comment lines, blank lines and trailing spaces: two replies that differ only
// there are the same task.
std::string Normalised(const std::string& code) {
  std::string out;
  for (std::string_view line : SplitLines(code)) {
    const std::string_view trimmed = Trim(line);
    if (trimmed.empty() || trimmed.front() == '#') {
      continue;
    }
    out += line.substr(0, line.find_last_not_of(" \t\r\n\f\v") + 1);
    out += '\n';
  }
  return out;
}

template <typename T>
std::vector<T> Sample(const std::vector<T>& from, int n, std::mt19937_64& random) {
  std::vector<T> out;
  std::sample(from.begin(), from.end(), std::back_inserter(out), n, random);
  std::shuffle(out.begin(), out.end(), random);
  return out;
}

}  // namespace

const std::vector<std::string>& DefaultTorchLayers() {
  static const std::vector<std::string> kLayers = {"nn.Conv1d",
                                                   "nn.Conv2d",
                                                   "nn.Conv3d",
                                                   "nn.ConvTranspose2d",
                                                   "nn.Linear",
                                                   "nn.Bilinear",
                                                   "nn.BatchNorm1d",
                                                   "nn.BatchNorm2d",
                                                   "nn.LayerNorm",
                                                   "nn.GroupNorm",
                                                   "nn.InstanceNorm2d",
                                                   "nn.RMSNorm",
                                                   "nn.MaxPool2d",
                                                   "nn.AvgPool2d",
                                                   "nn.AdaptiveAvgPool2d",
                                                   "nn.Dropout",
                                                   "nn.ReLU",
                                                   "nn.LeakyReLU",
                                                   "nn.GELU",
                                                   "nn.SiLU",
                                                   "nn.Mish",
                                                   "nn.Hardswish",
                                                   "nn.Hardtanh",
                                                   "nn.ELU",
                                                   "nn.SELU",
                                                   "nn.Softplus",
                                                   "nn.Softsign",
                                                   "nn.Sigmoid",
                                                   "nn.Tanh",
                                                   "nn.Softmax",
                                                   "nn.LogSoftmax",
                                                   "nn.Embedding",
                                                   "nn.EmbeddingBag",
                                                   "nn.PixelShuffle",
                                                   "nn.Upsample",
                                                   "nn.CosineSimilarity",
                                                   "nn.PairwiseDistance",
                                                   "nn.Flatten",
                                                   "nn.ZeroPad2d",
                                                   "nn.MultiheadAttention"};
  return kLayers;
}

Result<std::vector<std::string>> ReadLayerNames(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<std::string> names;
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_discarded()) {
    // The reference's file: {"layers": [...], "activations": [...]}; both are modules to use.
    std::vector<const nlohmann::json*> lists;
    if (json.is_object()) {
      for (const char* key : {"layers", "activations"}) {
        if (json.contains(key)) {
          lists.push_back(&json[key]);
        }
      }
    } else {
      lists.push_back(&json);
    }
    for (const nlohmann::json* list : lists) {
      if (!list->is_array()) {
        return ParseError(path +
                          ": expected {\"layers\": [...], \"activations\": [...]} or a JSON "
                          "array of names");
      }
      for (const nlohmann::json& item : *list) {
        if (item.is_string()) {
          names.push_back(item.get<std::string>());
        } else if (item.is_object() && item.contains("name") && item["name"].is_string()) {
          names.push_back(item["name"].get<std::string>());
        }
      }
    }
  } else {
    for (std::string_view raw : SplitLines(text)) {
      const std::string_view line = Trim(raw);
      if (!line.empty() && line[0] != '#') {
        names.emplace_back(line);
      }
    }
  }
  if (names.empty()) {
    return ParseError(path + ": no layer names in it");
  }
  return names;
}

std::string CheckTask(const std::string& path, const SynthesisOptions& options) {
  const std::string log = path + ".check.log";
  // The verdict line carries a nonce the task cannot know, so a task that prints a verdict of
  // its own and exits is caught.
  const std::string nonce = RandomHex(16);
  const std::string marker = kCheckPrefix + nonce + " ";
  std::error_code ec;
  fs::remove(log, ec);
  SpawnOptions spawn{.argv = {options.python, "-m", "adaexplore_worker.check_task", path,
                              "--device", options.device},
                     .env_set = {{"PYTHONPATH", options.python_path},
                                 {"PYTHONDONTWRITEBYTECODE", "1"},
                                 {"ADAEXPLORE_CHECK_NONCE", nonce}},
                     .env_unset = VariablesWithheldFromCandidates(),
                     .stdout_path = log,
                     .stderr_path = log};
  if (options.device == "cpu") {
    spawn.env_set.emplace_back("CUDA_VISIBLE_DEVICES", "");
  }
  Result<Process> process = Process::Spawn(spawn);
  if (!process.ok()) {
    return "could not start the check: " + process.status().message();
  }
  if (!process->Wait(Seconds(options.timeout_s))) {
    process->Terminate();
    fs::remove(log, ec);
    return fmt::format("did not finish within {:.0f} s", options.timeout_s);
  }
  Result<std::string> output = ReadFile(log);
  fs::remove(log, ec);
  const std::string text = output.ok() ? *output : "";
  const size_t at = text.rfind(marker);
  if (at == std::string::npos) {
    return fmt::format("the check died ({}) without a verdict",
                       process->exit_status() ? process->exit_status()->ToString() : "unknown");
  }
  const size_t end = text.find('\n', at);
  const nlohmann::json verdict = nlohmann::json::parse(
      text.substr(at + marker.size(),
                  end == std::string::npos ? std::string::npos : end - at - marker.size()),
      nullptr, false);
  if (!verdict.is_object() || !verdict.value("ok", false)) {
    return verdict.is_object() ? verdict.value("reason", std::string("failed"))
                               : "the check's verdict did not parse";
  }
  return "";
}

Result<SynthesisStats> SynthesizeTasks(LlmClient& llm, const SynthesisOptions& options) {
  if (options.examples.size() < static_cast<size_t>(kExamplesPerPrompt)) {
    return InvalidArgument(fmt::format("task synthesis needs at least {} example problems, got {}",
                                       kExamplesPerPrompt, options.examples.size()));
  }
  const std::vector<std::string>& layers =
      options.layers.empty() ? DefaultTorchLayers() : options.layers;
  ASSIGN_OR_RETURN(std::string system, ReadFile(options.prompts_dir + "/system.md"));
  ASSIGN_OR_RETURN(std::string text, ReadFile(options.prompts_dir + "/synthesize.md"));
  ASSIGN_OR_RETURN(
      PromptTemplate prompt,
      PromptTemplate::Parse(text, options.prompts_dir + "/synthesize.md", {"examples", "layers"}));
  RETURN_IF_ERROR(MakeDirectories(options.out_dir));

  SynthesisStats stats;
  std::set<std::string> seen;  // Normalised code of every kept or existing task.
  int next_index = 0;
  ASSIGN_OR_RETURN(std::vector<std::string> existing, ListPythonFiles(options.out_dir));
  for (const std::string& path : existing) {
    if (Result<std::string> code = ReadFile(path); code.ok()) {
      seen.insert(Normalised(*code));
    }
    ++next_index;
  }
  std::mt19937_64 random(options.seed);
  const int max_calls = options.count * kCallsPerTask;
  while (static_cast<int>(stats.kept.size()) < options.count && stats.calls < max_calls) {
    const int wanted =
        std::min(options.count - static_cast<int>(stats.kept.size()), max_calls - stats.calls);
    std::vector<uint64_t> ids;
    for (int i = 0; i < wanted; ++i) {
      std::string examples;
      for (const SourceFile& example : Sample(options.examples, kExamplesPerPrompt, random)) {
        examples +=
            fmt::format("### {}.py\n\n```python\n{}\n```\n\n", example.name, example.source);
      }
      std::string names;
      for (const std::string& layer : Sample(layers, kLayersPerPrompt, random)) {
        names += (names.empty() ? "" : ", ") + layer;
      }
      ChatRequest request{
          .model = options.model,
          .messages = {{.role = "system", .content = system},
                       {.role = "user",
                        .content = prompt.Render({{"examples", examples}, {"layers", names}})}},
          .max_output_tokens = options.max_output_tokens,
          .reasoning_effort = options.reasoning_effort,
          .sample = stats.calls,
          .role = LlmRole::kSynthesiser,
          .task = "synthesis"};
      ++stats.calls;
      ids.push_back(llm.Submit(std::move(request)));
    }
    for (uint64_t id : ids) {
      LlmCompletion completion = llm.Wait(id);
      if (completion.error) {
        if (completion.error->kind == LlmErrorKind::kAuth ||
            completion.error->kind == LlmErrorKind::kUnreachable ||
            completion.error->kind == LlmErrorKind::kBudget ||
            completion.error->kind == LlmErrorKind::kReplayMiss) {
          return Unavailable("task synthesis: " + completion.error->message);
        }
        ++stats.no_code;
        stats.problems.push_back("LLM call failed: " + completion.error->message);
        continue;
      }
      Result<std::string> code = ExtractKernel(completion.reply->text);
      if (!code.ok()) {
        ++stats.no_code;
        stats.problems.push_back("no code: " + code.status().message());
        continue;
      }
      if (!seen.insert(Normalised(*code)).second) {
        ++stats.duplicates;
        stats.problems.push_back("a duplicate of a task already kept");
        continue;
      }
      const std::string path = fmt::format("{}/synth_{:03d}.py", options.out_dir, next_index++);
      RETURN_IF_ERROR(WriteFileAtomic(path, *code));
      if (std::string problem = CheckTask(path, options); !problem.empty()) {
        ++stats.invalid;
        stats.problems.push_back(fs::path(path).filename().string() + ": " + problem);
        std::error_code ec;
        fs::remove(path, ec);
        continue;
      }
      options.logger->info("synthesis: kept {}", path);
      stats.kept.push_back(path);
    }
  }
  return stats;
}

}  // namespace adaexplore
