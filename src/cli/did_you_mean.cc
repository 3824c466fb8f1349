#include "cli/did_you_mean.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace adaexplore {
namespace {

// Edits between a and b, an adjacent transposition counting as one (optimal string alignment):
// "--trails" is one slip from "--trials", two from "--traces".
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) {
    d[i][0] = i;
  }
  std::iota(d[0].begin(), d[0].end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
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
