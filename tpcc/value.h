// Values passed to and read from a backend.
//
// The harness speaks in a handful of types so that the same transaction code
// binds parameters identically on every engine:
//   Null, Int (64-bit), Decimal (exact: units scaled by 10^scale), Double,
//   Text, Timestamp (microseconds since the Unix epoch, UTC).
// Backends map them to their own types (see each backend's comment).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tpcc {

struct Decimal {
  int64_t units = 0;  // value * 10^scale
  int scale = 2;
  bool operator==(const Decimal&) const = default;
};

struct Timestamp {
  int64_t micros = 0;  // since 1970-01-01 00:00:00 UTC
  bool operator==(const Timestamp&) const = default;
};

using Value = std::variant<std::monostate, int64_t, Decimal, double, std::string, Timestamp>;

inline Value null_value() { return std::monostate{}; }
inline Value money(int64_t cents) { return Decimal{cents, 2}; }
inline Value integer(int64_t value) { return Value{value}; }
inline Value text(std::string value) { return Value{std::move(value)}; }
inline Value decimal(int64_t units, int scale) { return Value{Decimal{units, scale}}; }
inline Value timestamp(int64_t micros) { return Value{Timestamp{micros}}; }

// Sets *slot to `held`, in place when it already holds a T (slots refilled
// with the same types by every transaction or result), without the variant's
// generic assignment.
template <typename T>
void set_in_place(Value* slot, T held) {
  if (auto* current = std::get_if<T>(slot)) {
    *current = held;
  } else {
    slot->emplace<T>(held);
  }
}
inline void set_int(Value* slot, int64_t value) {
  set_in_place<int64_t>(slot, value);
}

// Formats a timestamp as "YYYY-MM-DD HH:MM:SS.ffffff" (UTC), the text form
// that SQLite stores and PostgreSQL parses.
std::string format_timestamp(int64_t micros);
// Parses the text produced by format_timestamp (fraction optional).
// Returns false on malformed text.
bool parse_timestamp(std::string_view text, int64_t* micros);

// Formats units/10^scale as a decimal literal, e.g. {-1050, 2} -> "-10.50".
std::string format_decimal(int64_t units, int scale);

// Rounds a double to units at `scale` (half away from zero).
int64_t double_to_units(double value, int scale);

// Microseconds since the epoch, from the system clock.
int64_t now_micros();

}  // namespace tpcc
