#include "edits/search_replace.h"

// Parsing reads tags with plain string search (the content is code, full of < and >, so nothing
// stricter would survive real replies). Matching works on lines for the tolerant tiers: the kernel
// and the old text are split into lines, compared under the tier's notion of equality, and a
// unique match is replaced line-wise.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>

#include "edits/code_block.h"

namespace adaexplore {
namespace {

// The text between <tag> and </tag> starting at `from`, or nullopt; `end` is set past the close.
std::optional<std::string> TagContent(std::string_view text, const std::string& tag, size_t from,
                                      size_t* end) {
  const std::string open = "<" + tag + ">";
  const std::string close = "</" + tag + ">";
  size_t start = text.find(open, from);
  if (start == std::string_view::npos) {
    return std::nullopt;
  }
  start += open.size();
  size_t stop = text.find(close, start);
  if (stop == std::string_view::npos) {
    return std::nullopt;
  }
  if (end != nullptr) {
    *end = stop + close.size();
  }
  return std::string(text.substr(start, stop - start));
}

// Tag content as the model meant it: the newline after the open tag and before the close tag are
// layout, and a fence around the content (```python ... ```) is wrapping, not code.
std::string Unwrap(std::string content) {
  if (content.starts_with("\r\n")) {
    content.erase(0, 2);
  } else if (content.starts_with("\n")) {
    content.erase(0, 1);
  }
  std::vector<CodeBlock> blocks = FindCodeBlocks(content);
  std::string_view trimmed = content;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
    trimmed.remove_prefix(1);
  }
  if (blocks.size() == 1 && blocks[0].closed &&
      (trimmed.starts_with("```") || trimmed.starts_with("~~~"))) {
    return blocks[0].code;
  }
  if (content.ends_with("\n")) {
    content.pop_back();
    if (content.ends_with("\r")) {
      content.pop_back();
    }
  }
  return content;
}

// Numbered tags: <old_str_N>, <new_str_N>, <reasoning_N>; also a single unnumbered pair.
void ParseTagged(std::string_view text, EditParse& parse) {
  std::map<int, Edit> by_index;
  size_t at = 0;
  const std::string_view marker = "<old_str_";
  while ((at = text.find(marker, at)) != std::string_view::npos) {
    size_t digits = at + marker.size();
    size_t stop = digits;
    while (stop < text.size() && std::isdigit(static_cast<unsigned char>(text[stop]))) {
      ++stop;
    }
    constexpr size_t kMaxIndexDigits = 6;
    if (stop == digits || stop - digits > kMaxIndexDigits || stop >= text.size() ||
        text[stop] != '>') {
      at = stop;
      continue;
    }
    int index = 0;
    std::from_chars(text.data() + digits, text.data() + stop, index);
    const std::string n = std::to_string(index);
    size_t old_end = 0;
    std::optional<std::string> old_text = TagContent(text, "old_str_" + n, at, &old_end);
    if (!old_text) {
      parse.problems.push_back(fmt::format("edit {}: <old_str_{}> is never closed", index, index));
      break;
    }
    std::optional<std::string> new_text = TagContent(text, "new_str_" + n, old_end, nullptr);
    if (!new_text) {
      parse.problems.push_back(fmt::format(
          "edit {}: <old_str_{}> has no complete <new_str_{}> after it", index, index, index));
      at = old_end;
      continue;
    }
    if (by_index.contains(index)) {
      parse.problems.push_back(fmt::format("edit {} appears twice; the first is used", index));
      at = old_end;
      continue;
    }
    Edit edit{.index = index, .old_text = Unwrap(*old_text), .new_text = Unwrap(*new_text)};
    if (std::optional<std::string> why = TagContent(text, "reasoning_" + n, 0, nullptr)) {
      edit.reasoning = Unwrap(*why);
    }
    by_index[index] = std::move(edit);
    at = old_end;
  }
  for (auto& [index, edit] : by_index) {
    parse.edits.push_back(std::move(edit));
  }
  if (parse.edits.empty()) {
    size_t old_end = 0;
    std::optional<std::string> old_text = TagContent(text, "old_str", 0, &old_end);
    std::optional<std::string> new_text =
        old_text ? TagContent(text, "new_str", old_end, nullptr) : std::nullopt;
    if (old_text && new_text) {
      parse.edits.push_back(
          {.index = 1, .old_text = Unwrap(*old_text), .new_text = Unwrap(*new_text)});
    }
  }
}

// <<<<<<< SEARCH\n...\n=======\n...\n>>>>>>> REPLACE
void ParseConflictBlocks(std::string_view text, EditParse& parse) {
  constexpr std::string_view kSearch = "<<<<<<< SEARCH";
  constexpr std::string_view kDivider = "\n=======";
  constexpr std::string_view kReplace = ">>>>>>> REPLACE";
  size_t at = 0;
  int index = 0;
  while ((at = text.find(kSearch, at)) != std::string_view::npos) {
    ++index;
    size_t body = text.find('\n', at);
    size_t divider = body == std::string_view::npos ? body : text.find(kDivider, body);
    size_t replace = divider == std::string_view::npos ? divider : text.find(kReplace, divider);
    if (replace == std::string_view::npos) {
      parse.problems.push_back(fmt::format("SEARCH/REPLACE block {} is not complete", index));
      return;
    }
    std::string old_text(text.substr(body + 1, divider - body));  // Keeps the final newline.
    size_t new_start = text.find('\n', divider + 1);
    std::string new_text(new_start < replace ? text.substr(new_start + 1, replace - new_start - 1)
                                             : std::string_view());
    parse.edits.push_back(
        {.index = index, .old_text = std::move(old_text), .new_text = std::move(new_text)});
    at = replace + kReplace.size();
  }
}

// Lines separated by '\n': "a\n" is {"a", ""}, so a trailing newline in an edit's text keeps
// its meaning (an empty line) when the edit is applied line-wise.
std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      return lines;
    }
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::string_view RightTrim(std::string_view line) {
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) {
    line.remove_suffix(1);
  }
  return line;
}

bool IsBlank(std::string_view line) { return RightTrim(line).empty(); }

size_t Indent(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') {
    ++n;
  }
  return n;
}

// Removes up to `max_leading` / `max_trailing` blank lines from the ends; returns how many
// went from each end.
std::pair<size_t, size_t> TrimBlankEnds(std::vector<std::string>& lines, size_t max_leading,
                                        size_t max_trailing) {
  size_t trailing = 0;
  while (!lines.empty() && IsBlank(lines.back()) && trailing < max_trailing) {
    lines.pop_back();
    ++trailing;
  }
  size_t leading = 0;
  while (leading < lines.size() && leading < max_leading && IsBlank(lines[leading])) {
    ++leading;
  }
  lines.erase(lines.begin(), lines.begin() + static_cast<long>(leading));
  return {leading, trailing};
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size()) {
      out += '\n';
    }
  }
  return out;
}

// Where `old_lines` matches `lines` under tier `match`; for kIndentation also the shift (kernel
// indent minus old indent), the same for every non-blank line of a match.
struct LineMatch {
  size_t start = 0;
  long shift = 0;
};

std::vector<LineMatch> FindLineMatches(const std::vector<std::string>& lines,
                                       const std::vector<std::string>& old_lines, EditMatch match) {
  std::vector<LineMatch> found;
  if (old_lines.empty() || old_lines.size() > lines.size()) {
    return found;
  }
  for (size_t start = 0; start + old_lines.size() <= lines.size(); ++start) {
    std::optional<long> shift;
    bool equal = true;
    for (size_t k = 0; k < old_lines.size() && equal; ++k) {
      std::string_view have = RightTrim(lines[start + k]);
      std::string_view want = RightTrim(old_lines[k]);
      if (match == EditMatch::kWhitespace) {
        equal = have == want;
        continue;
      }
      if (want.empty() || have.empty()) {
        equal = want.empty() && have.empty();
        continue;
      }
      const long delta = static_cast<long>(Indent(have)) - static_cast<long>(Indent(want));
      equal = have.substr(Indent(have)) == want.substr(Indent(want)) && (!shift || *shift == delta);
      shift = delta;
    }
    if (equal) {
      found.push_back({start, shift.value_or(0)});
    }
  }
  return found;
}

std::string Reindent(const std::string& line, long shift) {
  if (IsBlank(line) || shift == 0) {
    return line;
  }
  if (shift > 0) {
    return std::string(static_cast<size_t>(shift), ' ') + line;
  }
  const size_t remove = std::min(Indent(line), static_cast<size_t>(-shift));
  return line.substr(remove);
}

EditReport ApplyOne(std::string& kernel, const Edit& edit) {
  EditReport report{.index = edit.index};
  if (RightTrim(edit.old_text).empty()) {
    report.match = EditMatch::kEmptyOld;
    return report;
  }
  // Tier 1: exact, counting non-overlapping occurrences.
  int count = 0;
  for (size_t at = kernel.find(edit.old_text); at != std::string::npos;
       at = kernel.find(edit.old_text, at + edit.old_text.size())) {
    ++count;
  }
  if (count == 1) {
    kernel.replace(kernel.find(edit.old_text), edit.old_text.size(), edit.new_text);
    report.match = EditMatch::kExact;
    return report;
  }
  if (count > 1) {
    report.match = EditMatch::kAmbiguous;
    report.occurrences = count;
    return report;
  }
  // Tiers 2 and 3, line-wise.
  std::vector<std::string> lines = SplitLines(kernel);
  std::vector<std::string> old_lines = SplitLines(edit.old_text);
  std::vector<std::string> new_lines = SplitLines(edit.new_text);
  // Blank lines around the old text are layout: the match is made without them. Where the kernel
  // has them at the match they are replaced too (as an exact match would have); where it does
  // not, the same number of blank lines around the new text is dropped with them.
  const auto [leading, trailing] = TrimBlankEnds(old_lines, SIZE_MAX, SIZE_MAX);
  for (EditMatch tier : {EditMatch::kWhitespace, EditMatch::kIndentation}) {
    std::vector<LineMatch> found = FindLineMatches(lines, old_lines, tier);
    if (found.size() > 1) {
      report.match = EditMatch::kAmbiguous;
      report.occurrences = static_cast<int>(found.size());
      return report;
    }
    if (found.size() == 1) {
      size_t begin = found[0].start;
      size_t end = begin + old_lines.size();
      size_t blank_before = 0;
      while (blank_before < leading && begin > 0 && IsBlank(lines[begin - 1])) {
        --begin;
        ++blank_before;
      }
      size_t blank_after = 0;
      while (blank_after < trailing && end < lines.size() && IsBlank(lines[end])) {
        ++end;
        ++blank_after;
      }
      std::vector<std::string> replacement_lines = new_lines;
      TrimBlankEnds(replacement_lines, leading - blank_before, trailing - blank_after);
      std::vector<std::string> replacement;
      for (const std::string& line : replacement_lines) {
        replacement.push_back(Reindent(line, found[0].shift));
      }
      lines.erase(lines.begin() + static_cast<long>(begin), lines.begin() + static_cast<long>(end));
      lines.insert(lines.begin() + static_cast<long>(begin), replacement.begin(),
                   replacement.end());
      kernel = JoinLines(lines);
      report.match = tier;
      return report;
    }
  }
  report.match = EditMatch::kNotFound;
  return report;
}

}  // namespace

EditParse ParseEdits(std::string_view reply) {
  const std::string text = StripReasoning(reply);
  EditParse parse;
  ParseTagged(text, parse);
  if (parse.edits.empty()) {
    ParseConflictBlocks(text, parse);
  }
  return parse;
}

std::string_view EditMatchName(EditMatch match) {
  switch (match) {
    case EditMatch::kExact:
      return "exact";
    case EditMatch::kWhitespace:
      return "whitespace";
    case EditMatch::kIndentation:
      return "indentation";
    case EditMatch::kNotFound:
      return "not_found";
    case EditMatch::kAmbiguous:
      return "ambiguous";
    case EditMatch::kEmptyOld:
      return "empty_old";
  }
  return "unknown";
}

int EditOutcome::applied_count() const {
  return static_cast<int>(std::count_if(reports.begin(), reports.end(),
                                        [](const EditReport& r) { return r.applied(); }));
}

std::string EditOutcome::Feedback() const {
  std::string out;
  for (const EditReport& report : reports) {
    switch (report.match) {
      case EditMatch::kNotFound:
        out += fmt::format("edit {} was skipped: its old_str matches nothing in the kernel\n",
                           report.index);
        break;
      case EditMatch::kAmbiguous:
        out += fmt::format(
            "edit {} was skipped: its old_str matches {} places; include more surrounding lines "
            "so it matches one\n",
            report.index, report.occurrences);
        break;
      case EditMatch::kEmptyOld:
        out += fmt::format("edit {} was skipped: its old_str is empty\n", report.index);
        break;
      default:
        break;
    }
  }
  return out;
}

EditOutcome ApplyEdits(std::string_view kernel, const std::vector<Edit>& edits) {
  EditOutcome outcome{.kernel = std::string(kernel)};
  for (const Edit& edit : edits) {
    outcome.reports.push_back(ApplyOne(outcome.kernel, edit));
  }
  return outcome;
}

}  // namespace adaexplore
