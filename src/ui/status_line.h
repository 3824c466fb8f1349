#pragma once

// StatusLine: progress output that overprints a one-line summary on a smart terminal and degrades
// to plain lines elsewhere (a pipe, a file, TERM=dumb). Messages (one per finished step) are
// printed above the status line, which is redrawn after them. Owned by the thread that prints;
// not thread-safe.
//
// Smart when the stream is a terminal and TERM is not "dumb", or when CLICOLOR_FORCE is set to
// something other than 0; `NO_COLOR` is honoured by printing no colour (we print none anyway).
//
// For programs (a command's --json): every message and every status is one JSON object on its
// own line, with the figures it was made from, {"event": "step", ..., "message": "..."} and
// {"event": "progress", "done": 3, "total": 8, ..., "status": "..."}, whatever the stream is.

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace adaexplore {

class StatusLine {
 public:
  enum class Format { kText, kJson };

  // Text decides smartness from the stream and the environment; JSON lines are for programs.
  explicit StatusLine(FILE* out, Format format = Format::kText);
  // For tests: smart or not, whatever `out` is.
  StatusLine(FILE* out, bool smart) : out_(out), smart_(smart) {}
  ~StatusLine();

  // Prints a line above the status line (on a dumb stream: just the line). As JSON: `event`
  // (an object with at least "event") with the line as its "message".
  void Message(const std::string& line, nlohmann::json event = {});
  // Replaces the status line (on a dumb stream: nothing is printed). As JSON: `fields` as a
  // "progress" event with the line as its "status"; clearing it, or the same line again, prints
  // nothing.
  void SetStatus(const std::string& status, nlohmann::json fields = {});

  bool smart() const { return smart_; }
  bool json() const { return format_ == Format::kJson; }

 private:
  void Clear();
  void Draw();
  void WriteJson(const nlohmann::json& line);

  FILE* out_;
  Format format_ = Format::kText;
  bool smart_ = false;
  std::string status_;
  bool drawn_ = false;
};

}  // namespace adaexplore
