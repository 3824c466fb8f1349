#pragma once

// StatusLine: progress output that overprints a one-line summary on a smart terminal and degrades
// to plain lines elsewhere (a pipe, a file, TERM=dumb). Messages (one per finished step) are
// printed above the status line, which is redrawn after them. Owned by the thread that prints;
// not thread-safe.
//
// Smart when the stream is a terminal and TERM is not "dumb", or when CLICOLOR_FORCE is set to
// something other than 0; `NO_COLOR` is honoured by printing no colour (we print none anyway).

#include <cstdio>
#include <string>

namespace adaexplore {

class StatusLine {
 public:
  // Decides from the stream and the environment.
  explicit StatusLine(FILE* out);
  // For tests: smart or not, whatever `out` is.
  StatusLine(FILE* out, bool smart) : out_(out), smart_(smart) {}
  ~StatusLine();

  // Prints a line above the status line (on a dumb stream: just the line).
  void Message(const std::string& line);
  // Replaces the status line (on a dumb stream: nothing is printed).
  void SetStatus(const std::string& status);

  bool smart() const { return smart_; }

 private:
  void Clear();
  void Draw();

  FILE* out_;
  bool smart_ = false;
  std::string status_;
  bool drawn_ = false;
};

}  // namespace adaexplore
