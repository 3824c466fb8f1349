#pragma once

// Search/replace edits: how small steps change a kernel. The tuner's reply holds numbered pairs
//
//   <reasoning_1>why</reasoning_1>
//   <old_str_1>text that is in the kernel now</old_str_1>
//   <new_str_1>what it becomes</new_str_1>
//
// (the reference release's format; aider-style "<<<<<<< SEARCH / ======= / >>>>>>> REPLACE"
// blocks are read too, since weaker models drift into them). Edits apply in order to the last
// kernel, each to the result of the ones before. Matching is exact first; then tolerant of
// trailing whitespace and leading/trailing blank lines (the reference's fallback); then of a
// uniform indentation shift, re-indenting the replacement to fit. An edit whose old text matches
// nothing, or more than one place, is skipped and reported, so the next prompt can say so.

#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

struct Edit {
  int index =
      0;  // As numbered in the reply (1-based); SEARCH/REPLACE blocks are numbered in order.
  std::string reasoning;
  std::string old_text;
  std::string new_text;
};

struct EditParse {
  std::vector<Edit> edits;
  std::vector<std::string> problems;  // Malformed pairs that were dropped, in words.
};

EditParse ParseEdits(std::string_view reply);

enum class EditMatch {
  kExact,
  kWhitespace,   // Equal up to trailing whitespace and surrounding blank lines.
  kIndentation,  // Equal up to one indentation shift for all lines.
  kNotFound,
  kAmbiguous,
  kEmptyOld,
};

std::string_view EditMatchName(EditMatch match);

struct EditReport {
  int index = 0;
  EditMatch match = EditMatch::kNotFound;
  int occurrences = 0;  // For kAmbiguous: how many places matched.
  bool applied() const {
    return match == EditMatch::kExact || match == EditMatch::kWhitespace ||
           match == EditMatch::kIndentation;
  }
};

struct EditOutcome {
  std::string kernel;  // The kernel after every edit that applied.
  std::vector<EditReport> reports;
  int applied_count() const;
  // One line per skipped edit, for the next prompt ("edit 2 was skipped: its old_str matches
  // nothing in the kernel"); empty when every edit applied.
  std::string Feedback() const;
};

EditOutcome ApplyEdits(std::string_view kernel, const std::vector<Edit>& edits);

}  // namespace adaexplore
