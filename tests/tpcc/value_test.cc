// Tests of value.h's free functions and of the typed accessors of Rows.
#include "tpcc/value.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "tpcc/backend.h"

namespace tpcc {
namespace {

Rows one_row(std::initializer_list<Value> values) {
  Rows rows;
  rows.set_columns(values.size());
  for (const Value& value : values) rows.push(value);
  return rows;
}

TEST_CASE("format_timestamp writes UTC with microseconds", "[value]") {
  CHECK(format_timestamp(0) == "1970-01-01 00:00:00.000000");
  CHECK(format_timestamp(1) == "1970-01-01 00:00:00.000001");
  CHECK(format_timestamp(-1) == "1969-12-31 23:59:59.999999");
  // 2024-02-29 12:34:56.789012 UTC (a leap day).
  CHECK(format_timestamp(1709210096789012) == "2024-02-29 12:34:56.789012");
  CHECK(format_timestamp(253402300799999999) == "9999-12-31 23:59:59.999999");
  CHECK(format_timestamp(-62167219200000000) == "0000-01-01 00:00:00.000000");
}

TEST_CASE("parse_timestamp reads what format_timestamp writes", "[value]") {
  for (int64_t micros : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{1709210096789012},
                         int64_t{951782400000000} /* 2000-02-29 */, int64_t{253402300799999999},
                         int64_t{-62167219200000000}}) {
    int64_t parsed = 42;
    REQUIRE(parse_timestamp(format_timestamp(micros), &parsed));
    CHECK(parsed == micros);
  }
}

TEST_CASE("parse_timestamp: optional fraction, 'T', and malformed text", "[value]") {
  int64_t micros = 0;
  CHECK(parse_timestamp("2024-02-29 12:34:56", &micros));
  CHECK(micros == 1709210096000000);
  CHECK(parse_timestamp("2024-02-29T12:34:56.5", &micros));
  CHECK(micros == 1709210096500000);
  CHECK(parse_timestamp("2024-02-29 12:34:56.78901", &micros));
  CHECK(micros == 1709210096789010);
  micros = 7;
  for (const char* bad :
       {"", "2024-02-30 00:00:00", "2023-02-29 00:00:00", "2024-13-01 00:00:00",
        "2024-01-01 24:00:00", "2024-01-01 00:60:00", "2024-01-01 00:00:60", "2024-01-01 00:00:00.",
        "2024-01-01 00:00:00.1234567", "2024-01-01 00:00:00Z", "2024-01-01", "24-01-01 00:00:00",
        "2024-01-01 00:00:0x"}) {
    INFO(bad);
    CHECK_FALSE(parse_timestamp(bad, &micros));
  }
  CHECK(micros == 7);  // untouched on failure
}

TEST_CASE("format_decimal", "[value]") {
  CHECK(format_decimal(-1050, 2) == "-10.50");
  CHECK(format_decimal(5, 2) == "0.05");
  CHECK(format_decimal(-5, 4) == "-0.0005");
  CHECK(format_decimal(0, 2) == "0.00");
  CHECK(format_decimal(123, 0) == "123");
  CHECK(format_decimal(0, 0) == "0");
  CHECK(format_decimal(std::numeric_limits<int64_t>::min(), 2) == "-92233720368547758.08");
  CHECK(format_decimal(std::numeric_limits<int64_t>::max(), 18) == "9.223372036854775807");
}

TEST_CASE("double_to_units rounds half away from zero at the scale", "[value]") {
  CHECK(double_to_units(10.5, 2) == 1050);
  CHECK(double_to_units(-10.5, 2) == -1050);
  CHECK(double_to_units(0.125, 2) == 13);  // exact binary half
  CHECK(double_to_units(-0.125, 2) == -13);
  CHECK(double_to_units(0.1 + 0.2, 2) == 30);
  CHECK(double_to_units(2.5, 0) == 3);
  CHECK(double_to_units(1234.5678, 4) == 12345678);
  CHECK_THROWS_AS(double_to_units(1e300, 2), std::out_of_range);
  CHECK_THROWS_AS(double_to_units(std::numeric_limits<double>::quiet_NaN(), 2), std::out_of_range);
}

TEST_CASE("now_micros is the wall clock in microseconds", "[value]") {
  const int64_t now = now_micros();
  CHECK(now > 1'600'000'000'000'000);  // after 2020-09
  CHECK(now < 4'000'000'000'000'000);  // before 2096
}

TEST_CASE("Rows::get_decimal accepts every representation", "[value][rows]") {
  const Rows rows = one_row({int64_t{12}, Decimal{1234, 2}, Decimal{123456, 4}, 10.005000001,
                             std::string("-3.14159"), std::string("7"), Decimal{-125, 3}});
  CHECK(rows.get_decimal(0, 0, 2) == 1200);
  CHECK(rows.get_decimal(0, 0, 0) == 12);
  CHECK(rows.get_decimal(0, 1, 2) == 1234);
  CHECK(rows.get_decimal(0, 1, 4) == 123400);
  CHECK(rows.get_decimal(0, 2, 4) == 123456);
  CHECK(rows.get_decimal(0, 2, 2) == 1235);  // 12.3456 -> 12.35
  CHECK(rows.get_decimal(0, 3, 2) == 1001);  // double rounded at the scale
  CHECK(rows.get_decimal(0, 4, 2) == -314);
  CHECK(rows.get_decimal(0, 4, 4) == -31416);
  CHECK(rows.get_decimal(0, 4, 6) == -3141590);
  CHECK(rows.get_decimal(0, 5, 2) == 700);
  CHECK(rows.get_decimal(0, 6, 2) == -13);  // -0.125 -> -0.13, half away from zero
}

TEST_CASE("Rows accessors throw BackendError naming row and column", "[value][rows]") {
  const Rows rows = one_row({Value(), std::string("abc"), 1.5, int64_t{3}});
  CHECK(rows.is_null(0, 0));
  CHECK_FALSE(rows.is_null(0, 1));
  CHECK_THROWS_WITH(rows.get_int(0, 0),
                    Catch::Contains("row 0 column 0") && Catch::Contains("NULL"));
  CHECK_THROWS_AS(rows.get_decimal(0, 0, 2), BackendError);
  CHECK_THROWS_AS(rows.get_decimal(0, 1, 2), BackendError);
  CHECK_THROWS_AS(rows.get_int(0, 2), BackendError);  // 1.5 is not an integer
  CHECK_THROWS_AS(rows.get_text(0, 3), BackendError);
  CHECK_THROWS_AS(rows.get_timestamp(0, 1), BackendError);
  CHECK_THROWS_WITH(rows.get_int(1, 0), Catch::Contains("outside"));
  CHECK_THROWS_WITH(rows.get_int(0, 4), Catch::Contains("outside"));
  CHECK(rows.get_double(0, 3) == 3.0);
  CHECK(rows.get_text(0, 1) == "abc");
  CHECK(rows.get_decimal(0, 3, 18) == 3000000000000000000);   // fits in int64
  CHECK_THROWS_AS(rows.get_decimal(0, 3, 19), BackendError);  // scale out of range
  const Rows big = one_row({int64_t{12}, std::string("99999999999999999999")});
  CHECK_THROWS_WITH(big.get_decimal(0, 0, 18), Catch::Contains("fits at scale 18"));
  CHECK_THROWS_AS(big.get_decimal(0, 1, 0), BackendError);
}

TEST_CASE("Rows::get_int and get_timestamp accept equivalent forms", "[value][rows]") {
  const Rows rows = one_row({4.0, Decimal{500, 2}, std::string("-42"),
                             std::string("2024-02-29 12:34:56.789012"), Timestamp{5}});
  CHECK(rows.get_int(0, 0) == 4);
  CHECK(rows.get_int(0, 1) == 5);
  CHECK(rows.get_int(0, 2) == -42);
  CHECK(rows.get_timestamp(0, 3) == 1709210096789012);
  CHECK(rows.get_timestamp(0, 4) == 5);
  CHECK(rows.get_text(0, 4) == "1970-01-01 00:00:00.000005");
}

}  // namespace
}  // namespace tpcc
