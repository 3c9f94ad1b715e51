// Terminals and the measured run (clause 5): T threads in a closed loop, each
// with a home warehouse and district, the full transaction mix.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tpcc/backend.h"
#include "tpcc/histogram.h"
#include "tpcc/durability.h"
#include "tpcc/journal.h"
#include "tpcc/loader.h"
#include "tpcc/transactions.h"

namespace tpcc {

struct RunOptions {
  int terminals = 4;
  double duration_s = 30;
  double warmup_s = 0;
  uint64_t seed = 1;
  bool think = false;     // keying and think times (clause 5.2.5)
  bool progress = true;   // a live line on stderr about once a second
  // When > 0: stop after this many transactions (all terminals together)
  // instead of after duration_s.
  uint64_t max_transactions = 0;
  // When set: every committed write transaction is recorded here with its
  // commit sequence number (see journal.h; this serializes writers).
  Journal* journal = nullptr;
  // When set: every acknowledged New-Order is appended here (crash loop,
  // clause 3.5).
  SuccessFile* success = nullptr;
  // > 0: this many driver threads run the terminals, each keeping the writes
  // of its share in flight (Connection::submit_write) instead of a thread
  // per terminal blocked in each write. Only without think times and on an
  // engine that supports it (solo); else a thread per terminal.
  int drivers = 0;
  // Districts delivered per database transaction (1..10): a business
  // Delivery is one or more (up to 10) database transactions (clause
  // 2.7.4.1), run one after another by its terminal; its response time runs
  // from the first one's start to the last one's answer.
  int delivery_districts = 10;
  // > 0 and < terminals (thread-per-terminal mode): the terminals share
  // this many connections, as behind a connection pool or a transaction
  // monitor; a terminal takes one for each business transaction (a split
  // Delivery keeps it for all its database transactions), waiting for the
  // longest-waiting first, and the wait counts in its response time.
  int connections = 0;
  // > 0: the run ends its window early, keeping what it measured, once the
  // machine's MemAvailable falls below this many bytes (looked at once a
  // second), instead of growing on until the kernel's out-of-memory killer
  // ends the process and the results with it (solo's state grows ~1 GiB a
  // minute at ~50k tps).
  int64_t memory_floor_bytes = 0;
  // A SIGINT during the run ends its window instead of the process
  // (interrupt.h, InterruptEndsWindow): `tpcc run` reports what it measured.
  bool interrupt_ends_window = false;
};

struct TypeStats {
  uint64_t count = 0;      // completed in the measured window (rollbacks included)
  uint64_t rollbacks = 0;  // New-Order's 1% unused-item rollbacks
  uint64_t retries = 0;    // bodies run again after a busy/serialization conflict
  Histogram latency;       // microseconds, retries included
  // Driver mode (solo): microseconds from the start to the owner's answer,
  // before the driver thread took it (the driver answers its terminals one
  // after another; `latency` includes that wait, as a terminal sees it).
  Histogram answer_latency;
  void merge(const TypeStats& other);
};

// Counts of input decisions, for the mix audit (clause 9.2 style).
struct MixCounts {
  uint64_t new_orders = 0;
  uint64_t new_order_rollbacks = 0;
  uint64_t order_lines = 0;
  uint64_t remote_order_lines = 0;
  uint64_t payments = 0;
  uint64_t remote_payments = 0;        // customer of another warehouse
  uint64_t payments_by_name = 0;
  uint64_t order_statuses = 0;
  uint64_t order_statuses_by_name = 0;
  uint64_t deliveries = 0;  // business transactions (a split one counts once)
  uint64_t stock_levels = 0;
  uint64_t total = 0;
  // Decks (tpcc/deck.h) only partly dealt to the measured transactions, over
  // all terminals: at most two per terminal (the window's edges cut one deck
  // each). Each can move the measured type shares off the deck's (audit.h).
  uint64_t partial_decks = 0;
  void merge(const MixCounts& other);
};

struct RunResult {
  std::array<TypeStats, kTxnTypes> per_type;
  MixCounts mix;
  double measured_s = 0;
  uint64_t completed = 0;  // all types, rollbacks included
  uint64_t committed = 0;  // completed minus rollbacks
  double tps = 0;          // committed per second
  double tpmc = 0;         // New-Orders (rollbacks included) per minute
  double cpu_us_per_txn = 0;
  // The same CPU split by thread name ("solo-owner", "tpcc-driver",
  // "solo-ckpt", ...; "(server)": PostgreSQL's processes), largest first.
  std::vector<std::pair<std::string, double>> cpu_by_thread;
  int64_t rss_bytes = 0;
  std::string error;       // first non-retryable error; the run stopped early
  // Why the measured window ended before its time (RunOptions::
  // memory_floor_bytes, a SIGINT: interrupt.h), or "": the figures are the
  // shorter window's.
  std::string ended_early;
  int drivers = 0;         // driver threads used; 0: a thread per terminal
  int delivery_districts = 10;  // districts per database transaction of a Delivery
  int connections = 0;          // connections the terminals shared (0: one each)
  // Backend::metrics() after the run (e.g. solo's owner_utilization).
  std::vector<std::pair<std::string, double>> engine_metrics;
};

// Runs `options.terminals` terminals against `backend` for warmup + duration
// seconds and returns the measurements of the duration part. The database must
// be loaded (`info` from read_load_info). A non-retryable error stops the run
// and is reported in RunResult::error.
RunResult run_terminals(Backend& backend, const LoadInfo& info, const RunOptions& options);

}  // namespace tpcc
