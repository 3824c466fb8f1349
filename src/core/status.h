#pragma once

// Status: the outcome of an operation that can fail, as a small code plus a message that says
// what failed and where. Result<T> (result.h) carries a value or a Status. Operations return these
// instead of throwing; exceptions from third-party code are caught at the boundary and converted.
//
// Outcomes the search expects (a kernel that does not compile, a worker that crashed) are data,
// not Status errors: see eval/verdict.h.
//
// Example:
//   Status s = WriteFileAtomic(path, text);
//   if (!s.ok()) return s.WithContext("saving the report");

#include <string>
#include <string_view>

namespace adaexplore {

enum class StatusCode {
  kOk,
  kInvalidArgument,  // The caller's input is wrong: a bad flag, a malformed file.
  kNotFound,
  kIoError,        // A system call failed.
  kParseError,     // Text we were given does not parse (TOML, JSON, a task file).
  kProtocolError,  // A peer (worker, server) broke the protocol.
  kTimeout,
  kUnavailable,  // A peer went away; trying again may work.
  kCancelled,    // The user interrupted the run.
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns this status with "context: " put in front of the message; Ok stays Ok.
  Status WithContext(std::string_view context) const;

  // "code: message", for logs and the CLI.
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
inline Status NotFound(std::string message) { return {StatusCode::kNotFound, std::move(message)}; }
inline Status IoError(std::string message) { return {StatusCode::kIoError, std::move(message)}; }
inline Status ParseError(std::string message) {
  return {StatusCode::kParseError, std::move(message)};
}
inline Status ProtocolError(std::string message) {
  return {StatusCode::kProtocolError, std::move(message)};
}
inline Status TimeoutError(std::string message) {
  return {StatusCode::kTimeout, std::move(message)};
}
inline Status Unavailable(std::string message) {
  return {StatusCode::kUnavailable, std::move(message)};
}
inline Status Cancelled(std::string message) {
  return {StatusCode::kCancelled, std::move(message)};
}
inline Status InternalError(std::string message) {
  return {StatusCode::kInternal, std::move(message)};
}

}  // namespace adaexplore

// RETURN_IF_ERROR(expr): evaluates a Status expression and returns it from the enclosing function
// if it is not Ok.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::adaexplore::Status adx_status_ = (expr); \
    if (!adx_status_.ok()) return adx_status_; \
  } while (false)

// CHECK(cond): a broken invariant of our own code, never bad input. Crashes loudly.
#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) ::adaexplore::internal::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (false)

namespace adaexplore::internal {
[[noreturn]] void CheckFailed(const char* condition, const char* file, int line);
}  // namespace adaexplore::internal
