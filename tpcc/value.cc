// Free functions of value.h: timestamp text, decimal text, rounding, clock.
//
// Timestamps are converted with the proleptic Gregorian calendar (Howard
// Hinnant's days_from_civil / civil_from_days), so no time zone database and
// no locale is involved: the text is always UTC.
#include "tpcc/value.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tpcc {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kSecondsPerDay = 86'400;

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t days_from_civil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;  // [0, 399]
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

CivilDate civil_from_days(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;  // [0, 146096]
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_index = (5 * day_of_year + 2) / 153;  // March = 0
  const int day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  const int month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  return {year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

bool is_leap(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int64_t year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

int64_t floor_div(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}

// Writes `value` as exactly `width` decimal digits (zero padded) ending before `end`.
void put_digits(char* end, int width, int64_t value) {
  for (int digit_idx = 0; digit_idx < width; ++digit_idx) {
    *--end = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

// Parses exactly `width` digits at text[*pos]; advances *pos.
bool take_digits(std::string_view text, size_t* pos, int width, int64_t* out) {
  if (*pos + width > text.size()) return false;
  int64_t value = 0;
  for (int digit_idx = 0; digit_idx < width; ++digit_idx) {
    const char c = text[*pos + digit_idx];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *pos += width;
  *out = value;
  return true;
}

bool take_char(std::string_view text, size_t* pos, char expected) {
  if (*pos >= text.size() || text[*pos] != expected) return false;
  ++*pos;
  return true;
}

}  // namespace

std::string format_timestamp(int64_t micros) {
  const int64_t seconds = floor_div(micros, kMicrosPerSecond);
  const int64_t fraction = micros - seconds * kMicrosPerSecond;
  const int64_t days = floor_div(seconds, kSecondsPerDay);
  const int64_t second_of_day = seconds - days * kSecondsPerDay;
  const CivilDate date = civil_from_days(days);

  // "YYYY-MM-DD HH:MM:SS.ffffff" is 26 characters for years 0..9999.
  char buffer[26];
  put_digits(buffer + 26, 6, fraction);
  buffer[19] = '.';
  put_digits(buffer + 19, 2, second_of_day % 60);
  buffer[16] = ':';
  put_digits(buffer + 16, 2, second_of_day / 60 % 60);
  buffer[13] = ':';
  put_digits(buffer + 13, 2, second_of_day / 3600);
  buffer[10] = ' ';
  put_digits(buffer + 10, 2, date.day);
  buffer[7] = '-';
  put_digits(buffer + 7, 2, date.month);
  buffer[4] = '-';
  if (date.year >= 0 && date.year <= 9999) {
    put_digits(buffer + 4, 4, date.year);
    return std::string(buffer, 26);
  }
  // Outside the 4-digit range the text is still unambiguous, but
  // parse_timestamp does not accept it.
  return std::to_string(date.year) + std::string(buffer + 4, 22);
}

bool parse_timestamp(std::string_view text, int64_t* micros) {
  size_t pos = 0;
  int64_t year, month, day, hour, minute, second;
  if (!take_digits(text, &pos, 4, &year) || !take_char(text, &pos, '-') ||
      !take_digits(text, &pos, 2, &month) || !take_char(text, &pos, '-') ||
      !take_digits(text, &pos, 2, &day)) {
    return false;
  }
  if (pos >= text.size() || (text[pos] != ' ' && text[pos] != 'T')) return false;
  ++pos;
  if (!take_digits(text, &pos, 2, &hour) || !take_char(text, &pos, ':') ||
      !take_digits(text, &pos, 2, &minute) || !take_char(text, &pos, ':') ||
      !take_digits(text, &pos, 2, &second)) {
    return false;
  }
  int64_t fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++digits > 6) return false;
      fraction = fraction * 10 + (text[pos++] - '0');
    }
    if (digits == 0) return false;
    for (; digits < 6; ++digits) fraction *= 10;
  }
  if (pos != text.size()) return false;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, static_cast<int>(month)) ||
      hour > 23 || minute > 59 || second > 59) {
    return false;
  }
  const int64_t days = days_from_civil(year, static_cast<int>(month), static_cast<int>(day));
  *micros =
      ((days * kSecondsPerDay + hour * 3600 + minute * 60 + second) * kMicrosPerSecond) + fraction;
  return true;
}

std::string format_decimal(int64_t units, int scale) {
  // The magnitude as unsigned, so that INT64_MIN has one too.
  const uint64_t magnitude =
      units < 0 ? uint64_t{0} - static_cast<uint64_t>(units) : static_cast<uint64_t>(units);
  std::string digits = std::to_string(magnitude);
  if (scale <= 0) {
    digits.append(static_cast<size_t>(-scale), '0');
    if (magnitude == 0) digits = "0";
  } else {
    const size_t width = static_cast<size_t>(scale) + 1;
    if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
    digits.insert(digits.size() - static_cast<size_t>(scale), 1, '.');
  }
  return units < 0 ? "-" + digits : digits;
}

// Rounds the exact binary value of `value` (not its shortest decimal text):
// 1.005 is 1.00499999999999989... and gives 100 at scale 2. Throws
// std::out_of_range for a non-finite value, a scale outside [0, 18] or a
// result outside int64.
int64_t double_to_units(double value, int scale) {
  if (scale < 0 || scale > 18) throw std::out_of_range("double_to_units: scale out of [0, 18]");
  long double factor = 1;
  for (int digit_idx = 0; digit_idx < scale; ++digit_idx) factor *= 10;  // exact in long double
  const long double scaled = std::round(static_cast<long double>(value) * factor);
  // 2^63 is exact in long double; anything at or beyond it does not fit.
  constexpr long double kLimit = 9223372036854775808.0L;
  if (!std::isfinite(scaled) || scaled >= kLimit || scaled < -kLimit) {
    throw std::out_of_range("double_to_units: " + std::to_string(value) +
                            " does not fit at scale " + std::to_string(scale));
  }
  return static_cast<int64_t>(scaled);
}

int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tpcc
