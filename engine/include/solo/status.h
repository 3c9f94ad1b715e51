// Status and Result<T>: the engine's one error model. No exception crosses the
// engine's API; every failure is a Status value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace solo {

class Status {
 public:
  enum class Code : uint8_t {
    kOk = 0,
    kNotFound,         // the key or name does not exist
    kAlreadyExists,    // duplicate primary key, unique index entry, or name
    kConstraint,       // NOT NULL or another column constraint was violated
    kInvalidArgument,  // wrong type, bad id, value out of range, key too long
    kAborted,          // the transaction was rolled back (rollback(), exception)
    kShutdown,         // the database is closing or closed
    kInternal,         // a bug or an unexpected condition
    kIOError,          // a file operation failed (durability is lost: fatal for the database)
    kCorruption,       // a durable file is damaged (not at the log's tail); names file and offset
    kCancelled,        // the caller's cancel flag stopped the call (which changed nothing)
  };

  // An OK status: one null pointer. Costs no allocation, and making,
  // moving, testing and destroying it are a store, a copy, a compare and a
  // compare: hot paths return Status from every call. Only an error
  // allocates (its code and message).
  Status() = default;
  Status(const Status& other)
      : rep_(other.rep_ == nullptr ? nullptr : std::make_unique<Rep>(*other.rep_)) {}
  Status& operator=(const Status& other) {
    if (this != &other) {
      rep_ = other.rep_ == nullptr ? nullptr : std::make_unique<Rep>(*other.rep_);
    }
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status AlreadyExists(std::string_view msg) { return Status(Code::kAlreadyExists, msg); }
  static Status Constraint(std::string_view msg) { return Status(Code::kConstraint, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status Aborted(std::string_view msg) { return Status(Code::kAborted, msg); }
  static Status Shutdown(std::string_view msg) { return Status(Code::kShutdown, msg); }
  static Status Internal(std::string_view msg) { return Status(Code::kInternal, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status Cancelled(std::string_view msg) { return Status(Code::kCancelled, msg); }

  bool ok() const { return rep_ == nullptr; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsAlreadyExists() const { return code() == Code::kAlreadyExists; }
  bool IsConstraint() const { return code() == Code::kConstraint; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsAborted() const { return code() == Code::kAborted; }
  bool IsShutdown() const { return code() == Code::kShutdown; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsCancelled() const { return code() == Code::kCancelled; }

  Code code() const { return rep_ == nullptr ? Code::kOk : rep_->code; }
  // Empty for OK.
  const std::string& message() const { return rep_ == nullptr ? EmptyMessage() : rep_->message; }

  // "OK" or "<code name>: <message>".
  std::string ToString() const;

 private:
  struct Rep {
    Code code;
    std::string message;
  };

  // Every factory but OK() passes a code other than kOk.
  Status(Code code, std::string_view msg)
      : rep_(std::make_unique<Rep>(Rep{code, std::string(msg)})) {}
  static const std::string& EmptyMessage();

  std::unique_ptr<Rep> rep_;  // null: OK
};

// Either a value of type T or a non-OK Status.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : value_(std::move(status)) {}  // NOLINT: must not be OK

  bool ok() const { return std::holds_alternative<T>(value_); }
  // The error; Status::OK() when ok().
  Status status() const { return ok() ? Status::OK() : std::get<Status>(value_); }
  // Precondition: ok().
  T& value() { return std::get<T>(value_); }
  const T& value() const { return std::get<T>(value_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> value_;
};

}  // namespace solo
