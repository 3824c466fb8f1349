#include "cli/llm_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <iterator>

#include "config/config.h"
#include "core/json_text.h"
#include "core/log.h"
#include "edits/code_block.h"
#include "edits/search_replace.h"
#include "llm/client.h"
#include "llm/token_usage.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

// PROMPT, @FILE or - (stdin).
Result<std::string> ReadPrompt(const std::string& argument) {
  if (argument == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), {});
  }
  if (argument.starts_with("@")) {
    return ReadFile(argument.substr(1));
  }
  return argument;
}

nlohmann::json CompletionJson(const LlmCompletion& c) {
  nlohmann::json out = {{"sample", c.request.sample},
                        {"source", CallSourceName(c.source)},
                        {"attempts", c.attempts},
                        {"latency_s", c.latency_s}};
  if (c.reply) {
    out["text"] = c.reply->text;
    out["finish_reason"] = c.reply->finish_reason;
    out["usage"] = TokenUsageJson(c.reply->usage);
    out["error"] = nullptr;
  } else {
    out["text"] = nullptr;
    out["error"] = {{"kind", LlmErrorKindName(c.error->kind)}, {"message", c.error->message}};
  }
  return out;
}

}  // namespace

LlmCommands AddLlmCommand(CLI::App& app, LlmFlags& f) {
  CLI::App* llm = app.add_subcommand("llm", "Talk to an LLM provider directly; apply replies");
  llm->require_subcommand(1);
  CLI::App* ask = llm->add_subcommand("ask", "Send one prompt and print the reply");
  ask->add_option("prompt", f.prompt, "The prompt, @FILE, or - for stdin")->required();
  ask->add_option("--llm", f.model, "provider:model (default: [llm] model in the config)");
  ask->add_option("--system", f.system, "A system message");
  ask->add_option("--samples", f.samples, "Independent samples, sent concurrently (1)")
      ->check(CLI::Range(1, 1000));
  ask->add_option("--max-output-tokens", f.max_output_tokens, "Output limit for this call");
  ask->add_option("--reasoning-effort", f.reasoning_effort, "minimal, low, medium or high");
  ask->add_option("--temperature", f.temperature, "Sampling temperature (provider default)");
  ask->add_option("--record", f.record_path, "Append the exchange to this recording");
  ask->add_flag("--no-cache", f.no_cache, "Neither read nor write the response cache");
  ask->add_flag("--json", f.json, "One JSON object per sample, then the ledger");
  ask->add_option("--config", f.config_path, "TOML configuration (default ./adaexplore.toml)");
  ask->add_option("--log-level", f.log_level, "trace, debug, info, warn (default), error");

  CLI::App* edits = llm->add_subcommand("edits", "Apply a reply's edits to a kernel");
  edits->add_option("--kernel", f.kernel_path, "The kernel the reply edits")->required();
  edits->add_option("--reply", f.reply_path, "The reply (a file, or - for stdin)")->required();
  edits->add_option("--out", f.out_path, "Write the edited kernel here (default: stdout)");
  edits->add_flag("--json", f.json, "Report as JSON");
  return {ask, edits};
}

Result<int> RunLlmAsk(const LlmFlags& flags) {
  Config config;
  RETURN_IF_ERROR(LoadConfigFile(flags.config_path.empty() ? "adaexplore.toml" : flags.config_path,
                                 !flags.config_path.empty(), config));
  LlmOptions options = config.llm;
  const std::string model_text = flags.model.empty() ? options.model : flags.model;
  if (model_text.empty()) {
    return InvalidArgument("no model: pass --llm provider:model or set [llm] model");
  }
  ASSIGN_OR_RETURN(ModelSpec model, ParseModelSpec(model_text));
  if (!flags.record_path.empty()) {
    options.record_path = flags.record_path;
  }
  if (flags.no_cache) {
    options.cache_enabled = false;
  }
  ASSIGN_OR_RETURN(std::string prompt, ReadPrompt(flags.prompt));
  ASSIGN_OR_RETURN(Logger logger,
                   MakeStderrLogger(flags.log_level.empty() ? config.log_level : flags.log_level));
  ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> client, LlmClient::Create(options, logger));
  RETURN_IF_ERROR(client->Prepare(model));

  ChatRequest request{.model = model,
                      .max_output_tokens = flags.max_output_tokens,
                      .reasoning_effort = flags.reasoning_effort};
  if (!flags.system.empty()) {
    request.messages.push_back({"system", flags.system});
  }
  request.messages.push_back({"user", prompt});
  if (flags.temperature >= 0) {
    request.temperature = flags.temperature;
  }
  std::vector<uint64_t> ids;
  for (int sample = 0; sample < flags.samples; ++sample) {
    request.sample = sample;
    ids.push_back(client->Submit(request));
  }
  int failures = 0;
  for (uint64_t id : ids) {
    LlmCompletion done = client->Wait(id);
    failures += done.reply ? 0 : 1;
    if (flags.json) {
      std::printf("%s\n", JsonText(CompletionJson(done)).c_str());
    } else if (done.reply) {
      if (flags.samples > 1) {
        std::printf("--- sample %lld (%s, %.1f s) ---\n",
                    static_cast<long long>(done.request.sample),
                    std::string(CallSourceName(done.source)).c_str(), done.latency_s);
      }
      std::printf("%s\n", done.reply->text.c_str());
    } else {
      (void)std::fprintf(
          stderr, "sample %lld failed (%s): %s\n", static_cast<long long>(done.request.sample),
          std::string(LlmErrorKindName(done.error->kind)).c_str(), done.error->message.c_str());
    }
  }
  const nlohmann::json ledger = client->ledger().Summary();
  if (flags.json) {
    std::printf("%s\n", JsonText(nlohmann::json({{"ledger", ledger}})).c_str());
  } else {
    const nlohmann::json& total = ledger["total"];
    (void)std::fprintf(stderr, "%lld call(s), %lld input + %lld output tokens, cost %s\n",
                       static_cast<long long>(total["calls"].get<int64_t>()),
                       static_cast<long long>(total["input_tokens"].get<int64_t>()),
                       static_cast<long long>(total["output_tokens"].get<int64_t>()),
                       total["cost_usd"].is_null()
                           ? "unknown (no price for this model: see [llm.prices] in docs/llm.md)"
                           : fmt::format("${:.4f}", total["cost_usd"].get<double>()).c_str());
  }
  return failures == 0 ? 0 : 1;
}

Result<int> RunLlmEdits(const LlmFlags& flags) {
  ASSIGN_OR_RETURN(std::string kernel, ReadFile(flags.kernel_path));
  ASSIGN_OR_RETURN(std::string reply,
                   ReadPrompt(flags.reply_path == "-" ? "-" : "@" + flags.reply_path));
  EditParse parse = ParseEdits(reply);
  std::string result;
  nlohmann::json report = {
      {"mode", "edits"}, {"problems", parse.problems}, {"edits", nlohmann::json::array()}};
  if (parse.edits.empty()) {
    Result<std::string> whole = ExtractKernel(reply);
    if (!whole.ok()) {
      return whole.status().WithContext("the reply holds neither edits nor a kernel");
    }
    result = *whole;
    report["mode"] = "kernel";
  } else {
    EditOutcome outcome = ApplyEdits(kernel, parse.edits);
    result = outcome.kernel;
    for (const EditReport& r : outcome.reports) {
      report["edits"].push_back(
          {{"index", r.index}, {"match", EditMatchName(r.match)}, {"occurrences", r.occurrences}});
    }
    report["feedback"] = outcome.Feedback();
  }
  if (!flags.out_path.empty()) {
    RETURN_IF_ERROR(WriteFileAtomic(flags.out_path, result));
  }
  if (flags.json) {
    std::printf("%s\n", JsonText(report).c_str());
  } else {
    for (const std::string& problem : parse.problems) {
      (void)std::fprintf(stderr, "problem: %s\n", problem.c_str());
    }
    for (const auto& e : report["edits"]) {
      (void)std::fprintf(stderr, "edit %d: %s\n", e["index"].get<int>(),
                         e["match"].get<std::string>().c_str());
    }
    if (flags.out_path.empty()) {
      (void)std::fwrite(result.data(), 1, result.size(), stdout);
    }
  }
  return 0;
}

}  // namespace adaexplore
