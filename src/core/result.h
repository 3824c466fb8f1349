#pragma once

// Result<T>: a value of type T or a non-Ok Status. Move-friendly; accessing the value of an error
// result is a CHECK failure (a bug in the caller, who must test ok() first).
//
// Example:
//   Result<std::string> text = ReadFile(path);
//   if (!text.ok()) return text.status();
//   ASSIGN_OR_RETURN(auto task, ParseTask(*text));

#include <utility>
#include <variant>

#include "core/status.h"

namespace adaexplore {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT: implicit by design, like StatusOr.
  Result(Status status) : data_(std::move(status)) {  // NOLINT
    CHECK(!std::get<Status>(data_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(data_); }

  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }

  T& value() & {
    CHECK(ok());
    return std::get<T>(data_);
  }
  const T& value() const& {
    CHECK(ok());
    return std::get<T>(data_);
  }
  T&& value() && {
    CHECK(ok());
    return std::get<T>(std::move(data_));
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace adaexplore

#define ADX_CONCAT_INNER(a, b) a##b
#define ADX_CONCAT(a, b) ADX_CONCAT_INNER(a, b)

// ASSIGN_OR_RETURN(lhs, expr): evaluates a Result expression; on error returns its Status from the
// enclosing function, else moves the value into lhs (which may be a declaration).
// NOLINTBEGIN(bugprone-macro-parentheses): lhs may be a declaration and tmp is a name.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ADX_ASSIGN_OR_RETURN_IMPL(ADX_CONCAT(adx_result_, __LINE__), lhs, expr)
#define ADX_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
