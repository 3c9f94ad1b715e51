// SOLO_ASSERT: checks an invariant in debug builds (NDEBUG unset); a broken
// invariant is a bug, never an error path (STYLE.md habit 6).
#pragma once

#include <cstdio>
#include <cstdlib>

#ifndef NDEBUG
#define SOLO_DEBUG 1
#define SOLO_ASSERT(cond)                                                              \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)
#else
#define SOLO_DEBUG 0
#define SOLO_ASSERT(cond) \
  do {                    \
  } while (0)
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SOLO_POISON(addr, size) ASAN_POISON_MEMORY_REGION((addr), (size))
#define SOLO_UNPOISON(addr, size) ASAN_UNPOISON_MEMORY_REGION((addr), (size))
#else
#define SOLO_POISON(addr, size) ((void)(addr), (void)(size))
#define SOLO_UNPOISON(addr, size) ((void)(addr), (void)(size))
#endif
