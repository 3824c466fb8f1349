#include "ui/status_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "core/json_text.h"

namespace adaexplore {
namespace {

bool SmartTerminal(FILE* out) {
  const char* force = std::getenv("CLICOLOR_FORCE");
  if (force != nullptr && std::strcmp(force, "0") != 0 && *force != '\0') {
    return true;
  }
  const char* term = std::getenv("TERM");
  if (term == nullptr || std::strcmp(term, "dumb") == 0) {
    return false;
  }
  return ::isatty(::fileno(out)) != 0;
}

constexpr const char* kClearLine = "\r\x1b[K";

}  // namespace

StatusLine::StatusLine(FILE* out, Format format)
    : out_(out), format_(format), smart_(format == Format::kText && SmartTerminal(out)) {}

StatusLine::~StatusLine() {
  if (smart_ && drawn_) {
    (void)std::fputs(kClearLine, out_);  // Leave the terminal as we found it.
    (void)std::fflush(out_);
  }
}

void StatusLine::Clear() {
  if (drawn_) {
    (void)std::fputs(kClearLine, out_);
    drawn_ = false;
  }
}

void StatusLine::Draw() {
  if (!status_.empty()) {
    // Longer than the terminal, the line would wrap and "\r" could not take it back.
    winsize size{};
    size_t width = 80;
    if (::ioctl(::fileno(out_), TIOCGWINSZ, &size) == 0 && size.ws_col > 1) {
      width = size.ws_col;
    }
    const std::string shown =
        status_.size() < width ? status_ : status_.substr(0, width - 4) + "...";
    (void)std::fputs(shown.c_str(), out_);
    drawn_ = true;
  }
  (void)std::fflush(out_);
}

void StatusLine::WriteJson(const nlohmann::json& line) {
  const std::string text = JsonText(line);
  (void)std::fprintf(out_, "%s\n", text.c_str());
  (void)std::fflush(out_);
}

void StatusLine::Message(const std::string& line, nlohmann::json event) {
  if (json()) {
    if (!event.is_object()) {
      event = {{"event", "message"}};
    }
    event["message"] = line;
    WriteJson(event);
    return;
  }
  if (!smart_) {
    (void)std::fprintf(out_, "%s\n", line.c_str());
    (void)std::fflush(out_);
    return;
  }
  Clear();
  (void)std::fprintf(out_, "%s\n", line.c_str());
  Draw();
}

void StatusLine::SetStatus(const std::string& status, nlohmann::json fields) {
  if (json()) {
    if (!status.empty() && status != status_) {  // The same line again says nothing new.
      status_ = status;
      nlohmann::json line = {{"event", "progress"}};
      if (fields.is_object()) {
        line.update(fields);
      }
      line["status"] = status;
      WriteJson(line);
    }
    return;
  }
  status_ = status;
  if (!smart_) {
    return;
  }
  Clear();
  Draw();
}

}  // namespace adaexplore
