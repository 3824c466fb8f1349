#include "core/closest.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

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

std::string DidYouMeanSuffix(std::string_view typed, const std::vector<std::string>& known) {
  const std::string hint = Closest(typed, known);
  return hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint);
}

}  // namespace adaexplore
