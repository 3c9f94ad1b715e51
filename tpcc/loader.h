// The initial TPC-C population (clause 4.3.3.1) for W warehouses.
#pragma once

#include <cstdint>
#include <functional>

#include "tpcc/backend.h"
#include "tpcc/random.h"

namespace tpcc {

struct LoadOptions {
  int warehouses = 1;
  uint64_t seed = 1;
  bool progress = true;  // a progress bar on stderr
  // Rows per multi-row INSERT statement and per write transaction.
  int rows_per_insert = 100;
  int rows_per_txn = 5000;
};

// What the loader recorded in tpcc_meta (and what a run must read back).
struct LoadInfo {
  int warehouses = 0;
  uint64_t seed = 0;
  NURandC load_c;
  int64_t load_time_micros = 0;  // O_ENTRY_D, H_DATE and C_SINCE of loaded rows
};

// Drops any existing tables of `backend`, creates the schema and populates it.
// Loads in parallel on backend.load_parallelism() connections. Throws
// BackendError on failure (the database is then not usable; `tpcc check`
// refuses it because tpcc_meta is written last).
LoadInfo load_database(Backend& backend, const LoadOptions& options);

// Reads tpcc_meta. Throws BackendError when the database was not (completely)
// loaded.
LoadInfo read_load_info(Connection& conn);

}  // namespace tpcc
