// Result<T>: a value or the SqlError that prevented it.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "solo/sql/error.h"

namespace solo::sql {

// Holds either a T (ok()) or a SqlError. Accessing the side that is not held
// is a programming error (asserted in debug builds).
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(SqlError error) : value_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return value_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(value_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(value_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(value_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const SqlError& error() const {
    assert(!ok());
    return std::get<1>(value_);
  }

 private:
  std::variant<T, SqlError> value_;
};

}  // namespace solo::sql
