#include "core/status.h"

#include <cstdio>
#include <cstdlib>

namespace adaexplore {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kIoError:
      return "I/O error";
    case StatusCode::kParseError:
      return "parse error";
    case StatusCode::kProtocolError:
      return "protocol error";
    case StatusCode::kTimeout:
      return "timeout";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kCancelled:
      return "cancelled";
    case StatusCode::kInternal:
      return "internal error";
  }
  return "unknown";
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) {
    return *this;
  }
  return Status(code_, std::string(context) + ": " + message_);
}

std::string Status::ToString() const {
  if (ok()) {
    return "ok";
  }
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

namespace internal {
void CheckFailed(const char* condition, const char* file, int line) {
  (void)std::fprintf(stderr, "CHECK failed: %s at %s:%d\n", condition, file, line);
  std::abort();
}
}  // namespace internal

}  // namespace adaexplore
