// The database: one owner thread that runs write transactions in rounds, and
// snapshots that any thread may read. See engine/README.md for the invariants.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "solo/function_ref.h"
#include "solo/status.h"
#include "solo/txn.h"

namespace solo {

namespace internal {
struct RootSet;
class DbImpl;
}  // namespace internal

struct Options {
  // Reclaim at least this many retired nodes per round (more if the round
  // retired more), so that a round never pays for a long backlog at once.
  size_t reclaim_batch = 1024;
  // Run a full structural check of every tree after each round (O(size);
  // aborts on a broken invariant). For tests.
  bool check_invariants = false;
  // Test switches. false: retired nodes are never reused (kept until close).
  bool reuse_retired = true;
  // true: reclaim as if no snapshot were held. Unsafe; only to show that the
  // tests notice.
  bool unsafe_ignore_held_snapshots = false;
};

// Counters, read with relaxed atomics: each is exact, the set is not one instant.
struct Stats {
  uint64_t generation = 0;         // of the newest published snapshot
  uint64_t rounds = 0;             // rounds run by the owner
  uint64_t commits = 0;            // committed write transactions
  uint64_t rollbacks = 0;          // undone write transactions
  uint64_t state_bytes = 0;        // encoded keys + rows, newest snapshot
  uint64_t node_bytes = 0;         // tree nodes in use by the newest state
  uint64_t record_bytes = 0;       // row records (with headers) in use
  uint64_t arena_bytes = 0;        // memory taken from the system for nodes/records
  uint64_t retired_pending = 0;    // retired objects not yet reclaimed
  uint64_t reused_objects = 0;     // allocations served from spare arrays
  uint64_t fresh_objects = 0;      // allocations served from fresh memory
  uint64_t owner_busy_ns = 0;      // owner time spent running rounds
  uint64_t owner_idle_ns = 0;      // owner time spent waiting for requests
  uint64_t live_snapshots = 0;     // Snapshot handles taken and not yet released (any thread)
  // busy / (busy + idle), 0 if nothing was measured.
  double owner_utilization() const;
};

// A handle on one published snapshot: it keeps every node it can reach from
// being reused. Any thread may take, read (through ReadTxn), move and release
// it; it must be released before its Database is destroyed.
class Snapshot {
 public:
  Snapshot() = default;
  Snapshot(Snapshot&& other) noexcept;
  Snapshot& operator=(Snapshot&& other) noexcept;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  ~Snapshot() { release(); }

  bool valid() const { return roots_ != nullptr; }
  uint64_t generation() const;
  // Lets the owner reuse what only this snapshot could reach. Idempotent.
  void release();

 private:
  friend class Database;
  friend class ReadTxn;
  internal::DbImpl* db_ = nullptr;
  const internal::RootSet* roots_ = nullptr;
  uint32_t slot_ = 0;
};

class Database {
 public:
  // Opens an empty in-memory database and starts its owner thread.
  static Result<std::unique_ptr<Database>> open(const Options& options);

  // Closes (see close()). All snapshots must have been released.
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs fn(WriteTxn&) -> Status on the owner thread, serially with every
  // other write, and returns once the round that contains it is published
  // (its effects are then visible to every later read).
  // Returns fn's Status if it failed (the transaction is undone), Aborted if
  // fn called rollback() or threw, Shutdown after close(), InvalidArgument if
  // called from the owner thread itself. Any thread but the owner.
  template <class F>
  Status write(F&& fn) {
    return write_ref(FunctionRef<Status(WriteTxn&)>(fn));
  }

  // Runs fn(ReadTxn&) -> Status on the calling thread against the newest
  // published snapshot and returns its Status (Aborted if it threw).
  // Any thread; never waits for the owner.
  template <class F>
  Status read(F&& fn) const {
    return read_ref(FunctionRef<Status(ReadTxn&)>(fn));
  }

  // The newest published snapshot. Any thread.
  Snapshot snapshot() const;

  Stats stats() const;
  const Options& options() const;

  // Lets the queued writes finish, stops the owner and refuses later writes
  // with Shutdown. Idempotent. Any thread but the owner.
  void close();

  // For tests in tests/engine: the implementation.
  internal::DbImpl* impl() const { return impl_.get(); }

 private:
  explicit Database(std::unique_ptr<internal::DbImpl> impl);
  Status write_ref(FunctionRef<Status(WriteTxn&)> fn);
  Status read_ref(FunctionRef<Status(ReadTxn&)> fn) const;

  std::unique_ptr<internal::DbImpl> impl_;
};

}  // namespace solo
