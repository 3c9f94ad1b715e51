#include "tpcc/driver.h"

#include <fmt/format.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "tpcc/deck.h"
#include "tpcc/interrupt.h"
#include "tpcc/memory_check.h"
#include "tpcc/schema.h"
#include "tpcc/statements.h"
#include "tpcc/sysinfo.h"

namespace tpcc {
namespace {

using Clock = std::chrono::steady_clock;

int64_t micros_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
}

// Keying and think times in seconds (clause 5.2.5.7): keying is fixed, think
// time is negative-exponential with this mean, truncated at 10x the mean.
struct PacingSeconds {
  double keying;
  double think_mean;
};
constexpr std::array<PacingSeconds, kTxnTypes> kPacing = {{
    {18, 12},  // New-Order
    {3, 12},   // Payment
    {2, 10},   // Order-Status
    {2, 5},    // Delivery
    {2, 5},    // Stock-Level
}};

// Live counters read by the progress line; written by one terminal.
struct alignas(64) LiveCounters {
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> new_orders{0};
  std::atomic<uint64_t> retries{0};
};

// A connection with the harness's statements prepared on it (and the
// journal's sequence statement, when journaling).
struct Session {
  Session(std::unique_ptr<Connection> connection, bool journal)
      : conn(std::move(connection)), stmts(*conn) {
    if (journal) sequence.emplace(*conn);
  }
  std::unique_ptr<Connection> conn;
  PreparedStatements stmts;
  std::optional<JournalSequence> sequence;
};

// RunOptions::connections: the terminals' shared connections, handed out
// in the order they were asked for: a connection that is given back goes
// straight to the terminal that has waited longest, so no terminal starves.
// (A counting semaphore in front of a connection per terminal, tried
// first, let some terminals wait ~1 s while others took slot after slot,
// its waits spun, and PostgreSQL's 64 backends took turns with cold
// caches: W=1 T=64 1,085-1,278 tps against 1,705 at T=8.)
class SessionPool {
 public:
  void add(std::unique_ptr<Session> session) {
    free_.push_back(session.get());
    sessions_.push_back(std::move(session));
  }
  size_t size() const { return sessions_.size(); }

  // Waits for a free session; nullptr if `stop` was set first.
  Session* take(const std::atomic<bool>& stop) {
    std::unique_lock lock(mutex_);
    if (!free_.empty()) {
      Session* session = free_.back();
      free_.pop_back();
      return session;
    }
    Waiter self;
    waiting_.push_back(&self);
    while (self.granted == nullptr) {
      if (stop.load(std::memory_order_relaxed)) {
        waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &self));
        return nullptr;
      }
      self.cv.wait_for(lock, std::chrono::milliseconds(20));
    }
    return self.granted;
  }

  void give(Session* session) {
    std::lock_guard lock(mutex_);
    if (waiting_.empty()) {
      free_.push_back(session);
      return;
    }
    Waiter* next = waiting_.front();
    waiting_.pop_front();
    next->granted = session;
    next->cv.notify_one();
  }

 private:
  struct Waiter {
    std::condition_variable cv;
    Session* granted = nullptr;
  };
  std::vector<std::unique_ptr<Session>> sessions_;
  std::mutex mutex_;
  std::vector<Session*> free_;
  std::deque<Waiter*> waiting_;  // oldest first
};

struct SharedRunState {
  Clock::time_point measure_start;
  Clock::time_point measure_end;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> issued{0};  // transactions started, for max_transactions
  std::atomic<int> running{0};      // terminals still in their loop
  // Set once the monitor has read the threads' CPU at the window's end: a
  // harness thread that is done waits for it, so that its CPU is counted
  // under its name (RunResult::cpu_by_thread), not as an ended thread's.
  std::atomic<bool> cpu_read{false};
  void wait_cpu_read() const {
    while (!cpu_read.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::mutex error_mutex;
  std::string first_error;
  // RunOptions::connections: the terminals' shared connections (nullptr:
  // each terminal has its own).
  std::unique_ptr<SessionPool> pool;

  void fail(const std::string& message) {
    std::lock_guard lock(error_mutex);
    if (first_error.empty()) first_error = message;
    stop.store(true);
  }
};

class Terminal {
 public:
  // `session`: the terminal's own connection; nullptr when the terminals
  // share a SessionPool (thread-per-terminal mode only).
  Terminal(int index, const LoadInfo& info, const NURandC& run_c, const RunOptions& options,
           std::unique_ptr<Session> session)
      : rng_(options.seed * 1000003ULL + static_cast<uint64_t>(index) * 7919ULL + 17),
        info_(info),
        run_c_(run_c),
        options_(options),
        home_w_(index % info.warehouses + 1),
        home_d_((index / info.warehouses) % kDistrictsPerWarehouse + 1),
        own_(std::move(session)),
        session_(own_.get()) {}

  // Thread-per-terminal mode: a closed loop until the run stops.
  void run(SharedRunState& shared, LiveCounters& live) {
    while (!shared.stop.load(std::memory_order_relaxed)) {
      TxnType type = next_type();
      if (options_.think && !pause(shared, kPacing[static_cast<int>(type)].keying)) break;
      auto started = Clock::now();
      if (!may_start(shared, started)) break;
      // A shared connection for the whole business transaction; the wait
      // for it is part of the response time.
      if (shared.pool && (session_ = shared.pool->take(shared.stop)) == nullptr) break;
      TxnResult result;
      try {
        bool is_write = prepare(type);
        result = is_write ? session_->conn->write(body_) : session_->conn->read(body_);
        after(type, result);
        // The rest of a split Delivery, one database transaction after another.
        while (type == TxnType::kDelivery &&
               next_delivery_step(&delivery_, options_.delivery_districts)) {
          TxnResult step = session_->conn->write(body_);
          after(type, step);
          result.retries += step.retries;
        }
      } catch (const std::exception& error) {
        give_back(shared);
        fail(shared, type, error);
        break;
      }
      give_back(shared);
      record(type, started, Clock::now(), result, shared, live);
      if (options_.think) {
        double mean = kPacing[static_cast<int>(type)].think_mean;
        double think = std::min(-std::log(1.0 - rng_.unit()) * mean, 10 * mean);
        if (!pause(shared, think)) break;
      }
    }
  }

  // Driver mode (no think times), run by a thread that drives many
  // terminals: starts this terminal's next transaction. A read runs here at
  // once and is recorded; a write is submitted and stays in flight until
  // finish_write(). False when the terminal stops (nothing in flight).
  bool start_next(SharedRunState& shared, LiveCounters& live) {
    while (!shared.stop.load(std::memory_order_relaxed)) {
      TxnType type = next_type();
      auto started = Clock::now();
      if (!may_start(shared, started)) return false;
      try {
        if (prepare(type)) {
          session_->conn->submit_write(body_);
          in_flight_noticed_ = Clock::time_point{};
          in_flight_type_ = type;
          in_flight_started_ = started;
          in_flight_retries_ = 0;
          return true;
        }
        TxnResult result = session_->conn->read(body_);
        after(type, result);
        record(type, started, Clock::now(), result, shared, live);
      } catch (const std::exception& error) {
        fail(shared, type, error);
        return false;
      }
    }
    return false;
  }

  // Driver mode: waits for the write in flight and records it, or submits
  // the next database transaction of a split Delivery (which stays in
  // flight). kFailed on an error (reported through `shared`).
  enum class Finish { kDone, kContinues, kFailed };
  Finish finish_write(SharedRunState& shared, LiveCounters& live) {
    try {
      TxnResult result = session_->conn->finish_write();
      after(in_flight_type_, result);
      in_flight_retries_ += result.retries;
      if (in_flight_type_ == TxnType::kDelivery &&
          next_delivery_step(&delivery_, options_.delivery_districts)) {
        session_->conn->submit_write(body_);
        in_flight_noticed_ = Clock::time_point{};
        return Finish::kContinues;
      }
      result.retries = in_flight_retries_;
      // Ended when the driver first saw the answer, if it saw it before now.
      const Clock::time_point finished =
          in_flight_noticed_ != Clock::time_point{} ? in_flight_noticed_ : Clock::now();
      record(in_flight_type_, in_flight_started_, finished, result, shared, live);
      return Finish::kDone;
    } catch (const std::exception& error) {
      fail(shared, in_flight_type_, error);
      return Finish::kFailed;
    }
  }

  // Driver mode: if the write in flight has been answered, notes the time
  // it was first seen so (once); true if it has been answered.
  bool notice_answer() {
    if (in_flight_noticed_ != Clock::time_point{}) return true;
    if (!session_->conn->write_answered()) return false;
    in_flight_noticed_ = Clock::now();
    return true;
  }

  // Pool mode: the shared connection goes back after a transaction.
  void give_back(SharedRunState& shared) {
    if (!shared.pool) return;
    shared.pool->give(session_);
    session_ = nullptr;
  }

  const std::array<TypeStats, kTxnTypes>& per_type() const { return per_type_; }
  MixCounts mix() const {
    MixCounts mix = mix_;
    mix.partial_decks = measured_cards_.partial_decks();
    return mix;
  }

 private:
  // The next transaction's type, dealt from the terminal's deck (clause
  // 5.2.4.2: the mix of clause 5.2.3, exact over every full deck).
  TxnType next_type() {
    card_ = deck_.dealt();
    return deck_.deal(rng_);
  }

  // Whether a transaction may start at `now` (the window and
  // --transactions); counts it as issued.
  bool may_start(SharedRunState& shared, Clock::time_point now) const {
    if (now >= shared.measure_end) return false;
    return options_.max_transactions == 0 ||
           shared.issued.fetch_add(1) < options_.max_transactions;
  }

  void fail(SharedRunState& shared, TxnType type, const std::exception& error) const {
    shared.fail(fmt::format("{} on terminal (w={}, d={}): {}", txn_type_name(type), home_w_,
                            home_d_, error.what()));
  }

  // Files a transaction that ended at `finished`, if it started in the window.
  void record(TxnType type, Clock::time_point started, Clock::time_point finished,
              const TxnResult& result, SharedRunState& shared, LiveCounters& live) {
    if (started < shared.measure_start) return;
    TypeStats& stats = per_type_[static_cast<int>(type)];
    ++stats.count;
    if (result.outcome == Outcome::kRollback) ++stats.rollbacks;
    stats.retries += result.retries;
    stats.latency.record(micros_between(started, finished));
    if (result.answered_ns != 0) {
      const Clock::time_point answered{std::chrono::nanoseconds(result.answered_ns)};
      stats.answer_latency.record(micros_between(started, std::min(answered, finished)));
    }
    mix_.merge(pending_mix_);
    measured_cards_.add(card_);
    live.completed.fetch_add(1, std::memory_order_relaxed);
    if (type == TxnType::kNewOrder) live.new_orders.fetch_add(1, std::memory_order_relaxed);
    live.retries.fetch_add(result.retries, std::memory_order_relaxed);
  }

  // Sleeps `seconds` unless the run stops first; false when it stopped.
  bool pause(SharedRunState& shared, double seconds) {
    auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(seconds));
    while (Clock::now() < until) {
      if (shared.stop.load(std::memory_order_relaxed)) return false;
      std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(),
                                                            std::chrono::milliseconds(100)));
    }
    return true;
  }

  // Draws the inputs of a transaction of `type` and sets body_ to run it
  // (the body reads the inputs from this terminal, so it stays valid while
  // a write is in flight). True for a write. When journaling, a write body
  // takes a commit sequence number first (after() records the input once
  // the transaction committed).
  bool prepare(TxnType type) {
    pending_mix_ = MixCounts{};
    pending_mix_.total = 1;
    int64_t now = now_micros();
    switch (type) {
      case TxnType::kNewOrder: {
        new_order_ = make_new_order(rng_, run_c_, info_.warehouses, home_w_, now);
        pending_mix_.new_orders = 1;
        pending_mix_.new_order_rollbacks = new_order_.rollback ? 1 : 0;
        pending_mix_.order_lines = static_cast<uint64_t>(new_order_.ol_cnt);
        for (int line_idx = 0; line_idx < new_order_.ol_cnt; ++line_idx) {
          if (new_order_.lines[line_idx].supply_w_id != new_order_.w_id) {
            ++pending_mix_.remote_order_lines;
          }
        }
        body_ = [this](Txn& txn) {
          take_sequence(txn);
          return run_new_order(txn, session_->stmts, new_order_,
                               options_.success != nullptr ? &new_order_out_ : nullptr);
        };
        return true;
      }
      case TxnType::kPayment:
        payment_ = make_payment(rng_, run_c_, info_.warehouses, home_w_, now);
        pending_mix_.payments = 1;
        pending_mix_.remote_payments = payment_.c_w_id != payment_.w_id ? 1 : 0;
        pending_mix_.payments_by_name = payment_.by_name ? 1 : 0;
        body_ = [this](Txn& txn) {
          take_sequence(txn);
          return run_payment(txn, session_->stmts, payment_, nullptr);
        };
        return true;
      case TxnType::kOrderStatus:
        order_status_ = make_order_status(rng_, run_c_, home_w_);
        pending_mix_.order_statuses = 1;
        pending_mix_.order_statuses_by_name = order_status_.by_name ? 1 : 0;
        body_ = [this](Txn& txn) {
          return run_order_status(txn, session_->stmts, order_status_, nullptr);
        };
        return false;
      case TxnType::kDelivery:
        delivery_ = make_delivery(rng_, home_w_, now);
        pending_mix_.deliveries = 1;
        first_delivery_step(&delivery_, options_.delivery_districts);
        body_ = [this](Txn& txn) {
          take_sequence(txn);
          return run_delivery(txn, session_->stmts, delivery_, nullptr);
        };
        return true;
      case TxnType::kStockLevel:
        stock_level_ = make_stock_level(rng_, home_w_, home_d_);
        pending_mix_.stock_levels = 1;
        body_ = [this](Txn& txn) {
          return run_stock_level(txn, session_->stmts, stock_level_, nullptr);
        };
        return false;
    }
    throw BackendError("unknown transaction type");
  }

  void take_sequence(Txn& txn) {
    if (session_->sequence) sequence_number_ = session_->sequence->next(txn);
  }

  // What follows an answered transaction: the journal entry of a committed
  // write, and (with a success file) the acknowledged New-Order (for solo
  // on disk, acknowledged after its round was synced).
  void after(TxnType type, const TxnResult& result) {
    if (result.outcome != Outcome::kCommit) return;
    if (type == TxnType::kNewOrder && options_.success != nullptr) {
      options_.success->new_order(new_order_.w_id, new_order_.d_id, new_order_out_.o_id);
    }
    if (!session_->sequence) return;
    switch (type) {
      case TxnType::kNewOrder:
        options_.journal->add(JournalEntry{sequence_number_, new_order_});
        break;
      case TxnType::kPayment:
        options_.journal->add(JournalEntry{sequence_number_, payment_});
        break;
      case TxnType::kDelivery:
        options_.journal->add(JournalEntry{sequence_number_, delivery_});
        break;
      default:
        break;
    }
  }

  Rng rng_;
  TxnDeck deck_;
  uint64_t card_ = 0;         // the card of the transaction being run (TxnDeck::dealt())
  DeckTally measured_cards_;  // the cards of the transactions recorded
  const LoadInfo& info_;
  NURandC run_c_;
  const RunOptions& options_;
  int home_w_;
  int home_d_;
  std::unique_ptr<Session> own_;  // nullptr in pool mode
  Session* session_;              // the connection in use (pool mode: between take and give_back)
  std::array<TypeStats, kTxnTypes> per_type_;
  MixCounts mix_;
  MixCounts pending_mix_;
  // The transaction being run: its inputs, output and body.
  NewOrderInput new_order_;
  NewOrderOutput new_order_out_;
  PaymentInput payment_;
  OrderStatusInput order_status_;
  DeliveryInput delivery_;
  StockLevelInput stock_level_;
  int64_t sequence_number_ = 0;
  TxnBody body_;
  TxnType in_flight_type_ = TxnType::kNewOrder;  // driver mode: the write in flight
  Clock::time_point in_flight_started_;
  uint64_t in_flight_retries_ = 0;  // of the database transactions answered so far
  Clock::time_point in_flight_noticed_;  // when notice_answer() first saw the answer
};

// Driver mode: one thread keeps the writes of its terminals in flight and
// takes their answers in submission order (the order solo answers them).
void drive(const std::vector<Terminal*>& terminals, const std::vector<LiveCounters*>& live,
           SharedRunState& shared) {
  std::deque<size_t> in_flight;
  for (size_t idx = 0; idx < terminals.size(); ++idx) {
    if (terminals[idx]->start_next(shared, *live[idx])) in_flight.push_back(idx);
  }
  // A terminal's answer is timed when the driver first sees it, not when the
  // driver comes to that terminal: the writes are answered in submission
  // order, a round's answers come together, and the driver takes them one
  // after another, running each terminal's next inputs and reads in between.
  // No terminal of its own would wait for that work of the others
  // (tpcc/README.md "Metrics").
  size_t noticed = 0;  // in_flight's first `noticed` are answered and timed
  auto notice = [&] {
    while (noticed < in_flight.size() && terminals[in_flight[noticed]]->notice_answer()) ++noticed;
  };
  while (!in_flight.empty()) {
    notice();
    size_t idx = in_flight.front();
    in_flight.pop_front();
    if (noticed > 0) --noticed;
    // After an error, the writes still in flight are only collected.
    Terminal::Finish finish = terminals[idx]->finish_write(shared, *live[idx]);
    notice();  // the answers that came with this one, before its next transaction
    if (finish == Terminal::Finish::kContinues ||
        (finish == Terminal::Finish::kDone && terminals[idx]->start_next(shared, *live[idx]))) {
      in_flight.push_back(idx);
    }
  }
}

void print_live(double elapsed, bool warming, uint64_t completed_delta, uint64_t new_order_delta,
                double interval, uint64_t completed, uint64_t retries) {
  bool tty = isatty(STDERR_FILENO) != 0;
  fmt::print(stderr, "{}[{:5.0f} s] {:7} {:8.0f} tps  {:9.0f} tpmC  {:9} txns  {:6} retries{}",
             tty ? "\r" : "", elapsed, warming ? "warmup" : "run",
             static_cast<double>(completed_delta) / interval,
             static_cast<double>(new_order_delta) * 60 / interval, completed, retries,
             tty ? "   " : "\n");
}

}  // namespace

void TypeStats::merge(const TypeStats& other) {
  count += other.count;
  rollbacks += other.rollbacks;
  retries += other.retries;
  latency.merge(other.latency);
  answer_latency.merge(other.answer_latency);
}

void MixCounts::merge(const MixCounts& other) {
  new_orders += other.new_orders;
  new_order_rollbacks += other.new_order_rollbacks;
  order_lines += other.order_lines;
  remote_order_lines += other.remote_order_lines;
  payments += other.payments;
  remote_payments += other.remote_payments;
  payments_by_name += other.payments_by_name;
  order_statuses += other.order_statuses;
  order_statuses_by_name += other.order_statuses_by_name;
  deliveries += other.deliveries;
  stock_levels += other.stock_levels;
  total += other.total;
  partial_decks += other.partial_decks;
}

namespace {

// CPU per transaction over the window, by thread name: each name's
// growth; "(ended threads)" for what the process used beyond its live
// threads (threads that ended in the window), when above 1% of it;
// "(server)" for a database server's processes. Largest first.
std::vector<std::pair<std::string, double>> cpu_by_thread(
    const std::map<std::string, int64_t>& start, const std::map<std::string, int64_t>& end,
    int64_t process_micros, int64_t server_micros, uint64_t completed) {
  std::vector<std::pair<std::string, double>> shares;
  const auto per_txn = [completed](int64_t micros) {
    return static_cast<double>(micros) / static_cast<double>(completed);
  };
  int64_t live = 0;
  for (const auto& [name, micros] : end) {
    auto before = start.find(name);
    const int64_t grown = micros - (before == start.end() ? 0 : before->second);
    if (grown <= 0) continue;
    live += grown;
    shares.emplace_back(name, per_txn(grown));
  }
  if (process_micros - live > process_micros / 100) {
    shares.emplace_back("(ended threads)", per_txn(process_micros - live));
  }
  if (server_micros > 0) shares.emplace_back("(server)", per_txn(server_micros));
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return shares;
}

}  // namespace

RunResult run_terminals(Backend& backend, const LoadInfo& info, const RunOptions& options) {
  Rng run_rng(options.seed ^ 0x5EEDULL);
  NURandC run_c = make_run_c(run_rng, info.load_c);

  // Driver threads where asked for and possible (no think times, an engine
  // that takes submitted writes); else a thread per terminal, each with its
  // own connection, or sharing options.connections of them.
  const bool journal = options.journal != nullptr;
  auto first = std::make_unique<Session>(backend.connect(), journal);
  int drivers = 0;
  if (options.drivers > 0 && !options.think && first->conn->supports_submit()) {
    drivers = std::min<int>(options.drivers, options.terminals);
  }
  SharedRunState shared;
  if (drivers == 0 && options.connections > 0 && options.connections < options.terminals) {
    shared.pool = std::make_unique<SessionPool>();
    shared.pool->add(std::move(first));
    while (shared.pool->size() < static_cast<size_t>(options.connections)) {
      shared.pool->add(std::make_unique<Session>(backend.connect(), journal));
    }
  }
  // Connect every terminal before the clock starts.
  std::vector<std::unique_ptr<Terminal>> terminals;
  for (int terminal_idx = 0; terminal_idx < options.terminals; ++terminal_idx) {
    std::unique_ptr<Session> own;
    if (!shared.pool) {
      own = first ? std::move(first) : std::make_unique<Session>(backend.connect(), journal);
    }
    terminals.push_back(
        std::make_unique<Terminal>(terminal_idx, info, run_c, options, std::move(own)));
  }
  std::vector<LiveCounters> live(terminals.size());

  auto start = Clock::now();
  auto to_duration = [](double seconds) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  };
  shared.measure_start = start + to_duration(options.warmup_s);
  shared.measure_end = options.max_transactions > 0
                           ? Clock::time_point::max()
                           : shared.measure_start + to_duration(options.duration_s);
  if (options.journal != nullptr) {
    auto conn = backend.connect();
    JournalSequence::ensure_row(*conn);
  }

  std::vector<std::thread> threads;
  if (drivers == 0) {
    for (size_t terminal_idx = 0; terminal_idx < terminals.size(); ++terminal_idx) {
      shared.running.fetch_add(1);
      threads.emplace_back([&, terminal_idx] {
        pthread_setname_np(pthread_self(), "tpcc-terminal");  // RunResult::cpu_by_thread
        terminals[terminal_idx]->run(shared, live[terminal_idx]);
        shared.running.fetch_sub(1);
        shared.wait_cpu_read();
      });
    }
  } else {
    // Terminal i goes to driver i % drivers.
    for (int driver = 0; driver < drivers; ++driver) {
      std::vector<Terminal*> group;
      std::vector<LiveCounters*> group_live;
      for (size_t idx = static_cast<size_t>(driver); idx < terminals.size();
           idx += static_cast<size_t>(drivers)) {
        group.push_back(terminals[idx].get());
        group_live.push_back(&live[idx]);
      }
      shared.running.fetch_add(1);
      threads.emplace_back([&shared, group = std::move(group), group_live = std::move(group_live)] {
        pthread_setname_np(pthread_self(), "tpcc-driver");  // RunResult::cpu_by_thread
        drive(group, group_live, shared);
        shared.running.fetch_sub(1);
        shared.wait_cpu_read();
      });
    }
  }

  // The monitor: CPU at the window's edges, a progress line every second.
  std::vector<int> server_pids = backend.server_pids();
  int64_t cpu_start = 0;
  bool cpu_started = false;
  int64_t server_start = 0;
  std::map<std::string, int64_t> threads_start;
  uint64_t last_completed = 0, last_new_orders = 0;
  auto last_tick = start;
  auto totals = [&](uint64_t* completed, uint64_t* new_orders, uint64_t* retries) {
    *completed = *new_orders = *retries = 0;
    for (LiveCounters& counters : live) {
      *completed += counters.completed.load(std::memory_order_relaxed);
      *new_orders += counters.new_orders.load(std::memory_order_relaxed);
      *retries += counters.retries.load(std::memory_order_relaxed);
    }
  };
  // A SIGINT now, or memory running out, ends the window (RunResult::ended_early).
  std::optional<InterruptEndsWindow> interrupt_ends_window;
  if (options.interrupt_ends_window) interrupt_ends_window.emplace();
  std::string ended_early;
  Clock::time_point early_end = Clock::time_point::max();
  auto last_memory_look = start;
  auto end_early = [&](Clock::time_point now) {
    auto when = [&] {
      const double at_s = std::chrono::duration<double>(now - start).count();
      return now < shared.measure_start
                 ? fmt::format(
                       "during the warm-up ({:.1f} of {:.1f} s), before the measured window", at_s,
                       options.warmup_s)
                 : fmt::format("{:.1f} s into the measured window",
                               std::chrono::duration<double>(now - shared.measure_start).count());
    };
    if (deferred_interrupt() != 0) return fmt::format("interrupted (SIGINT) {}", when());
    if (options.memory_floor_bytes <= 0 || now - last_memory_look < std::chrono::seconds(1)) {
      return std::string();
    }
    last_memory_look = now;
    const int64_t available = available_memory_bytes();
    if (available < 0 || available >= options.memory_floor_bytes) return std::string();
    return fmt::format(
        "the machine's available memory (MemAvailable {} MiB) fell below the floor of {} MiB "
        "{}; ended there, before the out-of-memory killer would end the process "
        "(--memory-floor-mib)",
        available >> 20, options.memory_floor_bytes >> 20, when());
  };
  while (!shared.stop.load() && shared.running.load() > 0) {
    auto now = Clock::now();
    ended_early = end_early(now);
    if (!ended_early.empty()) {
      shared.stop.store(true);  // no terminal starts another transaction
      early_end = now;
      break;
    }
    if (!cpu_started && now >= shared.measure_start) {
      threads_start = thread_cpu_micros_by_name();
      server_start = processes_cpu_micros(server_pids);
      cpu_start = process_cpu_micros() + server_start;
      cpu_started = true;
      backend.begin_measurement();
    }
    if (now >= shared.measure_end) break;
    auto next_tick = last_tick + std::chrono::seconds(1);
    auto wake = std::min({next_tick, shared.measure_end,
                          cpu_started ? shared.measure_end : shared.measure_start});
    std::this_thread::sleep_for(std::min<Clock::duration>(wake - now, std::chrono::milliseconds(50)));
    now = Clock::now();
    // The tick advances with or without a progress line, or the wait above
    // would turn into a busy loop (it did, for --quiet).
    if (now >= next_tick && !options.progress) {
      last_tick = now;
    } else if (now >= next_tick) {
      uint64_t completed, new_orders, retries;
      totals(&completed, &new_orders, &retries);
      double interval = std::chrono::duration<double>(now - last_tick).count();
      print_live(std::chrono::duration<double>(now - start).count(), now < shared.measure_start,
                 completed - last_completed, new_orders - last_new_orders, interval, completed,
                 retries);
      last_completed = completed;
      last_new_orders = new_orders;
      last_tick = now;
    }
  }
  const int64_t server_end = processes_cpu_micros(server_pids);
  int64_t cpu_end = process_cpu_micros() + server_end;
  std::map<std::string, int64_t> threads_end = thread_cpu_micros_by_name();
  shared.cpu_read.store(true);
  auto window_end = std::min({Clock::now(), shared.measure_end, early_end});
  shared.stop.store(true);
  for (std::thread& thread : threads) thread.join();
  if (options.progress && isatty(STDERR_FILENO) != 0) fmt::print(stderr, "\n");

  RunResult result;
  result.drivers = drivers;
  result.connections = shared.pool ? static_cast<int>(shared.pool->size()) : 0;
  result.delivery_districts = options.delivery_districts;
  for (const auto& terminal : terminals) {
    for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
      result.per_type[type_idx].merge(terminal->per_type()[type_idx]);
    }
    result.mix.merge(terminal->mix());
  }
  result.error = shared.first_error;
  result.ended_early = ended_early;
  if (!ended_early.empty() && window_end < shared.measure_start && result.error.empty()) {
    result.error = "nothing measured: " + ended_early;
  }
  result.measured_s = std::max(
      1e-3, std::chrono::duration<double>(window_end - shared.measure_start).count());
  uint64_t rollbacks = 0;
  for (const TypeStats& stats : result.per_type) {
    result.completed += stats.count;
    rollbacks += stats.rollbacks;
  }
  result.committed = result.completed - rollbacks;
  result.tps = static_cast<double>(result.committed) / result.measured_s;
  result.tpmc = static_cast<double>(result.per_type[0].count) * 60 / result.measured_s;
  result.cpu_us_per_txn =
      result.completed == 0 || !cpu_started
          ? 0
          : static_cast<double>(cpu_end - cpu_start) / static_cast<double>(result.completed);
  if (result.completed > 0 && cpu_started) {
    const int64_t server = server_end - server_start;
    result.cpu_by_thread = cpu_by_thread(threads_start, threads_end, cpu_end - cpu_start - server,
                                         server, result.completed);
  }
  result.rss_bytes = resident_bytes();
  result.engine_metrics = backend.metrics();
  return result;
}

}  // namespace tpcc
