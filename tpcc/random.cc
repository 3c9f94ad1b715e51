// Random input generation for TPC-C 5.11; see random.h for the contracts.

#include "tpcc/random.h"

#include <cassert>
#include <cstdlib>
#include <utility>

namespace tpcc {

namespace {

// The NURand "A" constants of clause 2.1.6.
constexpr int64_t kCLastA = 255;
constexpr int64_t kCIdA = 1023;
constexpr int64_t kOlIIdA = 8191;

// Clause 2.1.6.1: the allowed |C_RUN - C_LOAD| for C_LAST.
constexpr int64_t kMinCLastDelta = 65;
constexpr int64_t kMaxCLastDelta = 119;
constexpr int64_t kForbiddenCLastDeltaA = 96;
constexpr int64_t kForbiddenCLastDeltaB = 112;

// Clause 4.3.2.3: syllable k spells digit k of a last-name number.
constexpr const char* kLastNameSyllables[10] = {"BAR",  "OUGHT", "ABLE", "PRI",   "PRES",
                                                "ESE",  "ANTI",  "CALLY", "ATION", "EING"};

// The a-string alphabet (clause 4.3.2.2 asks for "alphanumeric" characters).
constexpr char kAlphanumerics[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
constexpr int64_t kAlphanumericCount = sizeof(kAlphanumerics) - 1;  // without the NUL

// Clause 4.3.3.1: I_DATA / S_DATA lengths, the marker and how often it appears.
constexpr int kDataMinLen = 26;
constexpr int kDataMaxLen = 50;
constexpr char kOriginalMarker[] = "ORIGINAL";
constexpr int kOriginalMarkerLen = sizeof(kOriginalMarker) - 1;
constexpr int64_t kOriginalOneIn = 10;

// SplitMix64 step: spreads any seed (including 0) over the xoshiro state, which
// must not be all zero.
uint64_t splitmix64(uint64_t& seed_state) {
  uint64_t mixed = (seed_state += 0x9E3779B97F4A7C15ULL);
  mixed = (mixed ^ (mixed >> 30)) * 0xBF58476D1CE4E5B9ULL;
  mixed = (mixed ^ (mixed >> 27)) * 0x94D049BB133111EBULL;
  return mixed ^ (mixed >> 31);
}

uint64_t rotate_left(uint64_t value, int shift) { return (value << shift) | (value >> (64 - shift)); }

}  // namespace

Rng::Rng(uint64_t seed) {
  uint64_t seed_state = seed;
  for (uint64_t& word : state_) word = splitmix64(seed_state);
}

// xoshiro256** 1.0 (Blackman and Vigna, public domain reference algorithm).
uint64_t Rng::next() {
  const uint64_t result = rotate_left(state_[1] * 5, 7) * 9;
  const uint64_t shifted = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= shifted;
  state_[3] = rotate_left(state_[3], 45);
  return result;
}

int64_t Rng::uniform(int64_t low, int64_t high) {
  assert(low <= high);
  // Width of the range modulo 2^64; 0 means the full 64-bit range.
  const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1;
  if (span == 0) return static_cast<int64_t>(next());
  // Lemire's multiply-and-reject: unbiased, and rarely divides.
  unsigned __int128 product = static_cast<unsigned __int128>(next()) * span;
  uint64_t low_bits = static_cast<uint64_t>(product);
  if (low_bits < span) {
    const uint64_t threshold = (0 - span) % span;  // 2^64 mod span
    while (low_bits < threshold) {
      product = static_cast<unsigned __int128>(next()) * span;
      low_bits = static_cast<uint64_t>(product);
    }
  }
  const uint64_t offset = static_cast<uint64_t>(product >> 64);
  // Modular wrap back to int64_t is well defined in C++20.
  return static_cast<int64_t>(static_cast<uint64_t>(low) + offset);
}

double Rng::unit() {
  // The top 53 bits make every double in [0, 1) with spacing 2^-53.
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

NURandC make_load_c(Rng& rng) {
  NURandC load;
  load.c_last = rng.uniform(0, kCLastA);
  load.c_id = rng.uniform(0, kCIdA);
  load.ol_i_id = rng.uniform(0, kOlIIdA);
  return load;
}

bool c_last_delta_ok(int64_t load_c_last, int64_t run_c_last) {
  const int64_t delta = std::llabs(run_c_last - load_c_last);
  return delta >= kMinCLastDelta && delta <= kMaxCLastDelta && delta != kForbiddenCLastDeltaA &&
         delta != kForbiddenCLastDeltaB;
}

NURandC make_run_c(Rng& rng, const NURandC& load) {
  assert(load.c_last >= 0 && load.c_last <= kCLastA);
  NURandC run;
  // Choose uniformly among every C_RUN in [0, A] that obeys the delta rule.
  // There is always at least one: a load below 65 can add 65, and a load of
  // 65 or more can subtract 65.
  int64_t candidates[kCLastA + 1];
  int64_t candidate_count = 0;
  for (int64_t run_c_last = 0; run_c_last <= kCLastA; ++run_c_last) {
    if (c_last_delta_ok(load.c_last, run_c_last)) candidates[candidate_count++] = run_c_last;
  }
  assert(candidate_count > 0);
  run.c_last = candidates[rng.uniform(0, candidate_count - 1)];
  run.c_id = rng.uniform(0, kCIdA);
  run.ol_i_id = rng.uniform(0, kOlIIdA);
  return run;
}

int64_t nurand(Rng& rng, int64_t a, int64_t c, int64_t x, int64_t y) {
  assert(a >= 0 && x <= y && c >= 0);
  // Two statements so the draw order (A first) is fixed and reproducible.
  const int64_t from_a = rng.uniform(0, a);
  const int64_t from_range = rng.uniform(x, y);
  return (((from_a | from_range) + c) % (y - x + 1)) + x;
}

std::string last_name(int64_t num) {
  assert(num >= 0 && num <= 999);
  std::string name;
  name += kLastNameSyllables[num / 100];
  name += kLastNameSyllables[(num / 10) % 10];
  name += kLastNameSyllables[num % 10];
  return name;
}

std::string a_string(Rng& rng, int min_len, int max_len) {
  assert(0 <= min_len && min_len <= max_len);
  const int64_t length = rng.uniform(min_len, max_len);
  std::string text(static_cast<size_t>(length), '\0');
  for (char& ch : text) ch = kAlphanumerics[rng.uniform(0, kAlphanumericCount - 1)];
  return text;
}

std::string n_string(Rng& rng, int min_len, int max_len) {
  assert(0 <= min_len && min_len <= max_len);
  const int64_t length = rng.uniform(min_len, max_len);
  std::string digits(static_cast<size_t>(length), '\0');
  for (char& ch : digits) ch = static_cast<char>('0' + rng.uniform(0, 9));
  return digits;
}

std::string zip_code(Rng& rng) { return n_string(rng, 4, 4) + "11111"; }

std::string data_with_original(Rng& rng) {
  std::string data = a_string(rng, kDataMinLen, kDataMaxLen);
  // The other 90% could hold "ORIGINAL" by chance only with probability
  // about 43 * 62^-8 (2e-13), so they are not scrubbed.
  if (rng.uniform(1, kOriginalOneIn) == 1) {
    const int64_t position = rng.uniform(0, static_cast<int64_t>(data.size()) - kOriginalMarkerLen);
    data.replace(static_cast<size_t>(position), kOriginalMarkerLen, kOriginalMarker);
  }
  return data;
}

void permutation(Rng& rng, int32_t* out, int32_t n) {
  assert(n >= 0 && (n == 0 || out != nullptr));
  for (int32_t slot = 0; slot < n; ++slot) out[slot] = slot + 1;
  // Fisher-Yates: slot `slot` takes a uniform pick from the unshuffled prefix.
  for (int32_t slot = n - 1; slot > 0; --slot) {
    const int64_t pick = rng.uniform(0, slot);
    std::swap(out[slot], out[pick]);
  }
}

}  // namespace tpcc
