// Feeds 100,000 random and mutated inputs to the lexer and parser (the suite
// runs this under ASan+UBSan too): no crash, no sanitizer report, every error a
// value with a position, and every accepted statement round-trips.
// SOLO_FUZZ_SEED=n picks another seed; SOLO_FUZZ_INPUTS=n another count.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>

#include "fuzz_check.h"
#include "fuzz_corpus.h"

namespace solo::sql {
namespace {

using testing::FuzzCheckOne;
using testing::kFuzzSeeds;

constexpr std::string_view kVocabulary[] = {
    "SELECT", "FROM",    "WHERE",   "GROUP", "BY",      "HAVING",   "ORDER",   "LIMIT",
    "OFFSET", "JOIN",    "LEFT",    "ON",    "AND",     "OR",       "NOT",     "IN",
    "EXISTS", "BETWEEN", "LIKE",    "IS",    "NULL",    "CASE",     "WHEN",    "THEN",
    "ELSE",   "END",     "CAST",    "AS",    "INSERT",  "INTO",     "VALUES",  "UPDATE",
    "SET",    "DELETE",  "CREATE",  "TABLE", "INDEX",   "UNIQUE",   "PRIMARY", "KEY",
    "DROP",   "IF",      "DEFAULT", "INT",   "DECIMAL", "VARCHAR",  "TEXT",    "DISTINCT",
    "count",  "sum",     "t",       "a",     "b",       "\"Q\"",    "(",       ")",
    ",",      ";",       ".",       "*",     "+",       "-",        "/",       "%",
    "||",     "=",       "<>",      "<",     "<=",      ">",        ">=",      "?",
    "$1",     "$2",      "1",       "2.50",  ".5",      "1e3",      "'s'",     "''",
    "--c\n",  "/*c*/",   "EXPLAIN", "BEGIN", "COMMIT",  "ROLLBACK", "TRUE",    "FALSE",
    "ESCAPE", "CROSS",   "ASC",     "DESC",  "ALL",
};

class InputGenerator {
 public:
  explicit InputGenerator(uint64_t seed) : rng_(seed) {}

  std::string Next() {
    switch (Below(4)) {
      case 0:
        return RandomBytes();
      case 1:
        return RandomTokens();
      default:
        return Mutated();
    }
  }

 private:
  size_t Below(size_t bound) { return std::uniform_int_distribution<size_t>(0, bound - 1)(rng_); }

  std::string RandomBytes() {
    std::string input(Below(64), '\0');
    for (char& ch : input) {
      // Mostly printable ASCII, sometimes anything.
      ch = Below(8) == 0 ? static_cast<char>(Below(256)) : static_cast<char>(32 + Below(95));
    }
    return input;
  }

  std::string RandomTokens() {
    std::string input;
    size_t count = 1 + Below(24);
    for (size_t idx = 0; idx < count; ++idx) {
      input += kVocabulary[Below(std::size(kVocabulary))];
      if (Below(4) != 0) input += ' ';
    }
    return input;
  }

  std::string Mutated() {
    std::string input(kFuzzSeeds[Below(kFuzzSeeds.size())]);
    size_t mutations = 1 + Below(4);
    for (size_t idx = 0; idx < mutations; ++idx) Mutate(input);
    return input;
  }

  void Mutate(std::string& input) {
    size_t at = input.empty() ? 0 : Below(input.size());
    switch (Below(6)) {
      case 0:  // delete a span
        if (!input.empty()) input.erase(at, 1 + Below(std::min<size_t>(8, input.size() - at)));
        break;
      case 1:  // flip a byte
        if (!input.empty()) input[at] = static_cast<char>(Below(256));
        break;
      case 2:  // insert a vocabulary word
        input.insert(
            at, std::string(" ") + std::string(kVocabulary[Below(std::size(kVocabulary))]) + " ");
        break;
      case 3:  // duplicate a span
        if (!input.empty()) input.insert(at, input.substr(at, 1 + Below(16)));
        break;
      case 4:  // truncate
        input.resize(at);
        break;
      default:  // splice in a part of another seed
      {
        std::string_view other = kFuzzSeeds[Below(kFuzzSeeds.size())];
        size_t from = Below(other.size());
        input.insert(at, other.substr(from, Below(other.size() - from + 1)));
        break;
      }
    }
  }

  std::mt19937_64 rng_;
};

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::strtoull(value, nullptr, 10) : fallback;
}

TEST_CASE("fuzz: seeds parse and round-trip", "[fuzz]") {
  for (std::string_view seed : kFuzzSeeds) {
    INFO(seed);
    CHECK(ParseScript(seed).ok());
    CHECK(FuzzCheckOne(seed).empty());
  }
}

TEST_CASE("fuzz: 100,000 random and mutated inputs", "[fuzz]") {
  const uint64_t seed = EnvOr("SOLO_FUZZ_SEED", 20240601);
  const uint64_t inputs = EnvOr("SOLO_FUZZ_INPUTS", 100000);
  InputGenerator generator(seed);
  uint64_t parsed_ok = 0;
  uint64_t failures = 0;
  for (uint64_t input_idx = 0; input_idx < inputs; ++input_idx) {
    std::string input = generator.Next();
    std::string failure = FuzzCheckOne(input);
    if (ParseScript(input).ok()) ++parsed_ok;
    if (!failure.empty()) {
      ++failures;
      if (failures <= 10) FAIL_CHECK("input #" << input_idx << ": " << input << "\n" << failure);
    }
  }
  INFO("seed " << seed << ", " << parsed_ok << " of " << inputs << " inputs parsed");
  CHECK(failures == 0);
  // The generator must reach deep into the grammar, not only produce junk.
  CHECK(parsed_ok > inputs / 50);
}

}  // namespace
}  // namespace solo::sql
