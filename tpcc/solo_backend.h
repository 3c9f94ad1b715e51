// The solo backend: the engine embedded in this process, driven through its
// SQL layer with the same statement text as the other engines.
//
// Write transactions run on solo's owner thread inside db.write(): the body
// (the harness's transaction code) executes there, statement by statement, and
// the caller blocks until the round containing it is published. Read-only
// transactions run on the calling terminal's thread inside db.read(), against
// the newest published snapshot. solo never conflicts, so nothing is retried.
//
// Storage: the database lives in memory (durability, and so --storage disk and
// `tpcc check` of an earlier process's database, come with the log and
// checkpoints of the durability work).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tpcc/backend.h"

namespace solo {
class Database;
}

namespace tpcc {

class SoloBackend final : public Backend {
 public:
  // Throws std::invalid_argument for --storage disk (not durable yet).
  explicit SoloBackend(const BackendOptions& options);
  ~SoloBackend() override;

  std::string name() const override { return "solo"; }
  std::string location() const override { return "memory of this process"; }
  // True when the in-memory database holds a tpcc_meta table.
  bool exists() override;
  // Replaces the database with an empty one. Precondition: no connection is
  // in use.
  void destroy() override;
  std::unique_ptr<Connection> connect() override;
  // Rows are generated on the loading threads while the owner inserts.
  int load_parallelism() const override { return 2; }
  std::string describe_config() const override;
  // owner_utilization (busy share of the owner thread in the measured
  // window), state_bytes (encoded rows and keys), rss_over_state (resident
  // bytes the engine added since it was opened, over state bytes).
  std::vector<std::pair<std::string, double>> metrics() override;
  void begin_measurement() override;

 private:
  void open();

  std::unique_ptr<solo::Database> db_;
  int64_t rss_before_open_ = 0;
  uint64_t busy_ns_at_start_ = 0;
  uint64_t idle_ns_at_start_ = 0;
};

}  // namespace tpcc
