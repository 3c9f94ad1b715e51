// The TPC-C durability test (clause 3.5) for a crash loop: the driver keeps a
// success file of acknowledged New-Orders, and after a crash and restart
// `tpcc check --success-file F` verifies that none was lost.
#pragma once

#include <cstdint>
#include <string>

#include "tpcc/backend.h"

namespace tpcc {

// Appends one line per acknowledged New-Order ("NO w d o_id") with one
// write(2) each, so a kill -9 of the driver never leaves a torn line, and a
// line is in the file only after the engine acknowledged the commit.
class SuccessFile {
 public:
  // Opens (creates, appends to) `path`. Throws BackendError.
  explicit SuccessFile(const std::string& path);
  ~SuccessFile();
  SuccessFile(const SuccessFile&) = delete;
  SuccessFile& operator=(const SuccessFile&) = delete;
  // Any thread. Throws BackendError when the write fails.
  void new_order(int32_t w_id, int32_t d_id, int32_t o_id);

 private:
  std::string path_;
  int fd_ = -1;
};

struct DurabilityResult {
  bool ok = false;
  uint64_t acknowledged = 0;  // lines in the success file
  uint64_t missing = 0;       // acknowledged New-Orders without an ORDER row
  uint64_t rolled_back_lines = 0;  // ORDER-LINE rows of the unused item (rolled back New-Orders)
  int64_t next_o_id_growth = 0;    // sum(D_NEXT_O_ID) now minus right after the load
  std::string detail;               // one line: what held or the first failure
};

// Checks, against the database behind `conn` (loaded with `warehouses`):
// every New-Order in the success file has its ORDER row; no ORDER-LINE has
// the unused item of the 1% rollbacks; sum(D_NEXT_O_ID) grew by at least the
// number acknowledged. Throws BackendError when the file cannot be read or
// has a malformed line (with its line number).
DurabilityResult check_durability(Connection& conn, int warehouses, const std::string& path);

}  // namespace tpcc
