// Parser tests on replies built from the reference run's real kernels and errors
// (../shared/data/adaexplore-release/showcase; skipped when absent). For every small step, the
// edit from its parent's kernel to its own is written as a tuner reply of numbered
// old_str/new_str pairs, parsed and applied to the parent: the result must be the child's kernel
// exactly, also when the model pads old_str with stray whitespace. For every node with a kernel,
// a proposer-style reply quoting a real error in an untagged block before the kernel must yield
// the kernel.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "edits/code_block.h"
#include "edits/search_replace.h"
#include "shared_data.h"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

std::string Join(const std::vector<std::string>& lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    out += lines[i];
    if (i + 1 < end) {
      out += '\n';
    }
  }
  return out;
}

std::string Normalise(const std::string& code) {
  std::string out = code;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) {
    out.pop_back();
  }
  return out + "\n";
}

int Count(const std::string& haystack, const std::string& needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

struct Hunk {
  size_t parent_begin, parent_end, child_begin, child_end;
};

// Line-level LCS diff of a and b, as hunks of differing lines.
std::vector<Hunk> Diff(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::vector<Hunk> hunks;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ++i, ++j;
      continue;
    }
    Hunk hunk{i, i, j, j};
    while ((i < n || j < m) && !(i < n && j < m && a[i] == b[j])) {
      if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
        ++i;
      } else {
        ++j;
      }
    }
    hunk.parent_end = i;
    hunk.child_end = j;
    hunks.push_back(hunk);
  }
  return hunks;
}

// Edits that turn parent into child, top to bottom, each old_str unique in the kernel as it is
// when the edit applies (context lines are added until it is). Empty when no such edits exist.
std::vector<Edit> EditsFor(const std::string& parent, const std::string& child) {
  std::vector<std::string> current = Lines(parent);
  const std::vector<std::string> target = Lines(child);
  std::vector<Edit> edits;
  long delta = 0;
  for (const Hunk& hunk : Diff(Lines(parent), target)) {
    const size_t begin = static_cast<size_t>(static_cast<long>(hunk.parent_begin) + delta);
    const size_t end = static_cast<size_t>(static_cast<long>(hunk.parent_end) + delta);
    const size_t placed_before = edits.size();
    for (size_t context = 0; context < 40; ++context) {
      const size_t up = std::min(context + (begin == end ? 1 : 0), begin);
      const size_t down = std::min(context, current.size() - end);
      std::string old_text = Join(current, begin - up, end + down);
      if (old_text.empty() || Count(Join(current, 0, current.size()), old_text) != 1) {
        if (begin - up == 0 && end + down == current.size()) {
          return {};
        }
        continue;
      }
      std::vector<std::string> replacement(current.begin() + static_cast<long>(begin - up),
                                           current.begin() + static_cast<long>(begin));
      replacement.insert(replacement.end(), target.begin() + static_cast<long>(hunk.child_begin),
                         target.begin() + static_cast<long>(hunk.child_end));
      replacement.insert(replacement.end(), current.begin() + static_cast<long>(end),
                         current.begin() + static_cast<long>(end + down));
      if (replacement.empty()) {
        continue;  // Deleting whole lines needs a context line, or their newline would stay.
      }
      edits.push_back({.index = static_cast<int>(edits.size()) + 1,
                       .old_text = old_text,
                       .new_text = Join(replacement, 0, replacement.size())});
      current.erase(current.begin() + static_cast<long>(begin - up),
                    current.begin() + static_cast<long>(end + down));
      current.insert(current.begin() + static_cast<long>(begin - up), replacement.begin(),
                     replacement.end());
      delta += static_cast<long>(hunk.child_end - hunk.child_begin) -
               static_cast<long>(hunk.parent_end - hunk.parent_begin);
      break;
    }
    if (edits.size() == placed_before) {
      return {};
    }
  }
  return edits;
}

std::string TunerReply(const std::vector<Edit>& edits, bool pad_whitespace) {
  std::string reply = "The profile shows the kernel is memory bound; here are my edits.\n\n";
  for (const Edit& edit : edits) {
    std::string old_text = edit.old_text;
    std::string new_text = edit.new_text;
    if (pad_whitespace) {
      // Trailing spaces on every old line (the newline structure stays as it was).
      std::string padded;
      for (char c : old_text) {
        padded += c == '\n' ? std::string("  \n") : std::string(1, c);
      }
      old_text = padded + "  ";
    }
    const std::string n = std::to_string(edit.index);
    reply += "<reasoning_" + n + ">Change " + n + ".</reasoning_" + n + ">\n<old_str_" + n + ">\n" +
             old_text + "\n</old_str_" + n + ">\n<new_str_" + n + ">\n" + new_text +
             "\n</new_str_" + n + ">\n\n";
  }
  return reply;
}

TEST(ShowcaseRepliesTest, EditRepliesRebuildEveryChildFromItsParent) {
  const fs::path directory = test_data::ShowcaseDirectory();
  if (!fs::exists(directory)) {
    GTEST_SKIP() << "no showcase data at " << directory << " (set ADAEXPLORE_SHARED)";
  }
  int pairs = 0, edits_total = 0, rebuilt = 0, rebuilt_padded = 0, skipped = 0;
  std::map<std::string, int> padded_tiers;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (entry.path().filename() == "index.json") {
      continue;
    }
    std::ifstream in(entry.path());
    nlohmann::json tree = nlohmann::json::parse(in);
    std::map<int, std::string> code_by_node;
    for (const auto& step : tree["steps"]) {
      if (step["code"].is_string()) {
        code_by_node[step["node_id"].get<int>()] = Normalise(step["code"].get<std::string>());
      }
    }
    for (const auto& step : tree["steps"]) {
      if (step["created_by"] != "small_step" || !step["parent_node_id"].is_number()) {
        continue;
      }
      auto parent = code_by_node.find(step["parent_node_id"].get<int>());
      auto child = code_by_node.find(step["node_id"].get<int>());
      if (parent == code_by_node.end() || child == code_by_node.end() ||
          parent->second == child->second || parent->second.size() < 10) {
        continue;
      }
      ++pairs;
      std::vector<Edit> generated = EditsFor(parent->second, child->second);
      if (generated.empty()) {
        ++skipped;  // No unique old_str exists (the parent repeats itself); not a parser case.
        continue;
      }
      edits_total += static_cast<int>(generated.size());
      EditParse parse = ParseEdits(TunerReply(generated, false));
      ASSERT_EQ(parse.edits.size(), generated.size())
          << entry.path() << " node " << step["node_id"];
      EditOutcome outcome = ApplyEdits(parent->second, parse.edits);
      EXPECT_EQ(outcome.applied_count(), static_cast<int>(generated.size())) << outcome.Feedback();
      EXPECT_EQ(outcome.kernel, child->second) << entry.path() << " node " << step["node_id"];
      rebuilt += outcome.kernel == child->second ? 1 : 0;
      EditOutcome padded =
          ApplyEdits(parent->second, ParseEdits(TunerReply(generated, true)).edits);
      for (const EditReport& report : padded.reports) {
        ++padded_tiers[std::string(EditMatchName(report.match))];
      }
      rebuilt_padded += padded.kernel == child->second ? 1 : 0;
    }
  }
  ASSERT_GT(pairs, 100);
  EXPECT_EQ(rebuilt, pairs - skipped);
  // Line-wise matching treats blank lines at the ends of old_str as layout (the reference's rule),
  // so an edit whose old_str starts or ends with blank lines it means to replace can land
  // differently from the exact match; nearly all do not.
  EXPECT_GE(rebuilt_padded, (pairs - skipped) * 95 / 100);
  std::printf(
      "showcase: %d parent->child pairs, %d skipped (no unique old_str), %d edits; "
      "%d rebuilt exactly, %d rebuilt from whitespace-padded edits (",
      pairs, skipped, edits_total, rebuilt, rebuilt_padded);
  for (const auto& [tier, count] : padded_tiers) {
    std::printf("%s %d ", tier.c_str(), count);
  }
  std::printf(")\n");
}

TEST(ShowcaseRepliesTest, KernelsComeOutOfRepliesThatQuoteRealErrors) {
  const fs::path directory = test_data::ShowcaseDirectory();
  if (!fs::exists(directory)) {
    GTEST_SKIP() << "no showcase data at " << directory << " (set ADAEXPLORE_SHARED)";
  }
  std::vector<std::string> errors;
  std::vector<std::string> kernels;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (entry.path().filename() == "index.json") {
      continue;
    }
    std::ifstream in(entry.path());
    nlohmann::json tree = nlohmann::json::parse(in);
    for (const auto& step : tree["steps"]) {
      if (step["error"].is_string() && !step["error"].get<std::string>().empty()) {
        errors.push_back(step["error"].get<std::string>());
      }
      if (step["code"].is_string() &&
          step["code"].get<std::string>().find("class ModelNew") != std::string::npos) {
        kernels.push_back(step["code"].get<std::string>());
      }
    }
  }
  ASSERT_FALSE(errors.empty());
  ASSERT_GT(kernels.size(), 100u);
  int extracted = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string& error = errors[i % errors.size()];
    std::string kernel = kernels[i];
    if (!kernel.ends_with('\n')) {
      kernel += '\n';
    }
    std::string reply = "The previous kernel failed with:\n```\n" + error +
                        "\n```\nThe fix is to keep the accumulator in fp32.\n\n```python\n" +
                        kernel + "```\nThis should compile now.";
    Result<std::string> got = ExtractKernel(reply);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, kernel);
    extracted += *got == kernel ? 1 : 0;
    // The same reply cut off inside the kernel is reported as cut off.
    if (kernel.size() > 400) {
      Result<std::string> cut = ExtractKernel(reply.substr(0, reply.find("```python") + 200));
      EXPECT_FALSE(cut.ok());
    }
  }
  std::printf("showcase: %d of %zu kernels extracted from replies quoting %zu real errors\n",
              extracted, kernels.size(), errors.size());
}

}  // namespace
}  // namespace adaexplore
