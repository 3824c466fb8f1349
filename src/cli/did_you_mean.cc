#include "cli/did_you_mean.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace adaexplore {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

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

std::string Closest(std::string_view typed, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, typed.size() / 3) + 1;
  for (const std::string& name : known) {
    const size_t d = EditDistance(typed, name);
    if (d < best_distance && name != typed) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

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
