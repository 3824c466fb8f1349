#pragma once

// `adaexplore llm`: talk to a provider directly, to check a key, an endpoint or a model before a
// long run, and to make or inspect recordings.
//
//   adaexplore llm ask --llm openai:gpt-5-mini [--system TEXT] [--samples N] PROMPT|@FILE|-
//   adaexplore llm ask --llm replay:run.jsonl @prompt.txt     (answers from a recording)
//   adaexplore llm edits --kernel K.py --reply R.txt [--out NEW.py]
//
// `ask` prints each reply (with --json, one object per sample plus the ledger) and exits 1 if
// any sample failed. `edits` applies a reply's search/replace edits (or takes its whole kernel)
// the way a small step does, and reports each edit, to debug replies from a new model.

#include <CLI/CLI.hpp>
#include <string>

#include "core/result.h"

namespace adaexplore {

struct LlmFlags {
  std::string config_path;
  std::string model;
  std::string system;
  std::string prompt;
  int samples = 1;
  int64_t max_output_tokens = 0;
  std::string reasoning_effort;
  double temperature = -1;
  std::string record_path;
  bool no_cache = false;
  bool json = false;
  std::string log_level;
  // edits
  std::string kernel_path;
  std::string reply_path;
  std::string out_path;
};

// Adds `llm` with its subcommands; returns the two subcommands for dispatch.
struct LlmCommands {
  CLI::App* ask = nullptr;
  CLI::App* edits = nullptr;
};
LlmCommands AddLlmCommand(CLI::App& app, LlmFlags& flags);

Result<int> RunLlmAsk(const LlmFlags& flags);
Result<int> RunLlmEdits(const LlmFlags& flags);

}  // namespace adaexplore
