// Random input generation for TPC-C 5.11 (clauses 2.1.6, 4.3.2, 4.3.3).
//
// Every generator draws from a caller-owned Rng, so each terminal and each
// loader thread has its own stream and results are reproducible from a seed.
#pragma once

#include <cstdint>
#include <string>

namespace tpcc {

// A small, fast, seedable generator (xoshiro256**-style). Not thread-safe:
// one per thread.
class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t next();
  // Uniform integer in [low, high], both inclusive. Precondition: low <= high.
  int64_t uniform(int64_t low, int64_t high);
  // Uniform double in [0, 1).
  double unit();

 private:
  uint64_t state_[4];
};

// The C constants of NURand for one database (load) or one run.
struct NURandC {
  int64_t c_last = 0;   // A = 255
  int64_t c_id = 0;     // A = 1023
  int64_t ol_i_id = 0;  // A = 8191
};

// Draws the load-time constants uniformly (clause 2.1.6).
NURandC make_load_c(Rng& rng);
// Draws run-time constants from the load ones (clause 2.1.6.1): C_LAST's
// delta |run - load| lies in [65, 119] and is neither 96 nor 112; the other
// two are drawn uniformly.
NURandC make_run_c(Rng& rng, const NURandC& load);
// True when `run` satisfies the delta rule against `load` for C_LAST.
bool c_last_delta_ok(int64_t load_c_last, int64_t run_c_last);

// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
int64_t nurand(Rng& rng, int64_t a, int64_t c, int64_t x, int64_t y);

// Customer last name for a number in [0, 999] from the ten syllables
// (clause 4.3.2.3), e.g. 371 -> "PRICALLYOUGHT".
std::string last_name(int64_t num);

// A random string of length in [min_len, max_len] from alphanumerics
// (a-string, clause 4.3.2.2).
std::string a_string(Rng& rng, int min_len, int max_len);
// A random string of digits of length in [min_len, max_len] (n-string).
std::string n_string(Rng& rng, int min_len, int max_len);
// A zip code: 4 random digits followed by "11111" (clause 4.3.2.7).
std::string zip_code(Rng& rng);
// An a-string of length [26, 50] (I_DATA, S_DATA); in 10% of calls the string
// "ORIGINAL" is placed at a random position inside it (clause 4.3.3.1).
std::string data_with_original(Rng& rng);

// Uniform random permutation of 1..n (used for O_C_ID at load).
void permutation(Rng& rng, int32_t* out, int32_t n);

}  // namespace tpcc
