#pragma once

// `adaexplore memory`: look into and move a skill memory (adapt/skill_memory.h).
//
//   adaexplore memory list   --memory M.sqlite [--min-count K] [--json]   one rule per line
//   adaexplore memory show   --memory M.sqlite ID [--json]                a rule and its failures
//   adaexplore memory import --memory M.sqlite FILE                       rule||count text
//   adaexplore memory export --memory M.sqlite [--out FILE]               rule||count text
//   adaexplore memory stats  --memory M.sqlite [--json]
//
// The memory file is created by import (or adapt); the other subcommands refuse a missing one.

#include <CLI/CLI.hpp>
#include <string>

#include "core/result.h"

namespace adaexplore {

struct MemoryFlags {
  std::string memory_path;
  int64_t min_count = 0;
  int64_t rule_id = 0;
  std::string file;
  std::string out_path;
  bool json = false;
};

struct MemoryCommands {
  CLI::App* list = nullptr;
  CLI::App* show = nullptr;
  CLI::App* import = nullptr;
  CLI::App* export_ = nullptr;
  CLI::App* stats = nullptr;
};

MemoryCommands AddMemoryCommand(CLI::App& app, MemoryFlags& flags);
Result<int> RunMemory(const MemoryCommands& commands, const MemoryFlags& flags);

}  // namespace adaexplore
