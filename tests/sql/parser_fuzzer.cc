// libFuzzer target for the lexer and parser (built only when the compiler is
// clang; see tests/sql/meson.build). Aborts when fuzz_check.h's property
// fails, so libFuzzer saves the input; sanitizer reports abort by themselves.

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string failure = solo::sql::testing::FuzzCheckOne(input);
  if (!failure.empty()) {
    std::fprintf(stderr, "fuzz check failed: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
