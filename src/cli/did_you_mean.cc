#include "cli/did_you_mean.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace adaexplore {
namespace {

// The subcommand the arguments reached: where an unknown flag was looked for.
const CLI::App* Deepest(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    return Deepest(*sub);
  }
  return &app;
}

std::vector<std::string> FlagNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* level = &app; level != nullptr; level = level->get_parent()) {
    for (const CLI::Option* option : level->get_options()) {
      for (const std::string& name : option->get_lnames()) {
        names.push_back("--" + name);
      }
    }
  }
  return names;
}

std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  return names;
}

}  // namespace

std::string DidYouMean(const CLI::App& app, const std::vector<std::string>& argv) {
  const CLI::App* deepest = Deepest(app);
  const std::vector<std::string> flags = FlagNames(*deepest);
  const std::vector<std::string> commands = CommandNames(*deepest);
  std::string out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    std::string typed = arg.substr(0, arg.find('='));
    if (typed.rfind("--", 0) == 0) {
      if (std::find(flags.begin(), flags.end(), typed) != flags.end()) {
        continue;
      }
      if (const std::string hint = Closest(typed, flags); !hint.empty()) {
        out += fmt::format("did you mean {} (not {})?\n", hint, typed);
      }
    } else if (deepest == &app && i == 0 && !commands.empty() &&
               std::find(commands.begin(), commands.end(), typed) == commands.end()) {
      if (const std::string hint = Closest(typed, commands); !hint.empty()) {
        out += fmt::format("did you mean the command {} (not {})?\n", hint, typed);
      }
    }
  }
  return out;
}

}  // namespace adaexplore
