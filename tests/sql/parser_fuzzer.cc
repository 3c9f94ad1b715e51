// libFuzzer target for the lexer and parser (built only when the compiler is
// clang; see tests/sql/meson.build). Aborts when fuzz_check.h's property
// fails, so libFuzzer saves the input; sanitizer reports abort by themselves.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "fuzz_check.h"

namespace {

// SOLO_FUZZ_PLANT_BUG=TEXT: a heap read past the end on inputs containing
// TEXT, so that a test can show that a sanitizer report fails the run.
void MaybePlantedBug(std::string_view input) {
  static const char* planted = std::getenv("SOLO_FUZZ_PLANT_BUG");
  if (planted == nullptr || input.find(planted) == std::string_view::npos) return;
  auto copy = std::make_unique<char[]>(input.size());
  volatile const char* past_end = copy.get() + input.size();
  std::fprintf(stderr, "planted bug: reading byte %d past the end\n", *past_end);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  MaybePlantedBug(input);
  std::string failure = solo::sql::testing::FuzzCheckOne(input);
  if (!failure.empty()) {
    std::fprintf(stderr, "fuzz check failed: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
