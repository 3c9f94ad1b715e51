// Tests of the solo backend's shared plans: every connection of a backend
// uses one plan per SQL text, write bodies use the owner's buffers, and a
// schema change is never answered with a plan bound to the old catalog.
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/tpcc/temp_dir.h"
#include "tpcc/backend.h"
#include "tpcc/checks.h"
#include "tpcc/driver.h"
#include "tpcc/journal.h"
#include "tpcc/loader.h"

namespace tpcc {
namespace {

namespace fs = std::filesystem;

class TempDir : public test::TempDir {
 public:
  TempDir() : test::TempDir("solo-backend-test") {}
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::unique_ptr<Backend> solo_at(const TempDir& dir) {
  BackendOptions options;
  options.engine = "solo";
  options.storage = Storage::kRam;
  options.dir = dir.path();
  return make_backend(options);
}

void write_sql(Connection& connection, const std::string& sql, std::vector<Value> params = {}) {
  const StmtId stmt = connection.prepare(sql);
  connection.write([&](Txn& txn) {
    txn.exec(stmt, params);
    return Outcome::kCommit;
  });
}

TEST_CASE("connections share plans and each gets its own rows") {
  TempDir dir;
  auto backend = solo_at(dir);
  auto setup = backend->connect();
  setup->execute_script("CREATE TABLE t (k INTEGER NOT NULL, v INTEGER NOT NULL, PRIMARY KEY (k))");
  for (int k = 1; k <= 8; ++k) write_sql(*setup, "INSERT INTO t VALUES (?, ?)", {int64_t{k}, int64_t{k * 10}});

  const std::string select = "SELECT v FROM t WHERE k = ?";
  const std::string bump = "UPDATE t SET v = v + 1 WHERE k = ? RETURNING v";
  std::vector<std::unique_ptr<Connection>> connections;
  for (int idx = 0; idx < 4; ++idx) connections.push_back(backend->connect());
  // Each connection prepares the same texts, in a different order: ids are
  // the connection's own.
  std::vector<StmtId> selects, bumps;
  for (int idx = 0; idx < 4; ++idx) {
    if (idx % 2 == 0) {
      selects.push_back(connections[idx]->prepare(select));
      bumps.push_back(connections[idx]->prepare(bump));
    } else {
      bumps.push_back(connections[idx]->prepare(bump));
      selects.push_back(connections[idx]->prepare(select));
    }
  }
  REQUIRE(selects[0] == 0);
  REQUIRE(selects[1] == 1);

  // Four terminals at once: writes on the owner (shared buffers, one body at
  // a time) and reads on their own threads (their own buffers).
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int idx = 0; idx < 4; ++idx) {
    threads.emplace_back([&, idx] {
      int64_t key = idx + 1;
      for (int round = 0; round < 200; ++round) {
        Rows returned, read;
        connections[idx]->write([&](Txn& txn) {
          txn.exec(bumps[idx], {key}, &returned);
          return Outcome::kCommit;
        });
        connections[idx]->read([&](Txn& txn) {
          txn.exec(selects[idx], {key}, &read);
          return Outcome::kCommit;
        });
        // Only this thread changes row `key`: both answers are exact.
        int64_t expected = key * 10 + round + 1;
        if (returned.size() != 1 || returned.get_int(0, 0) != expected) wrong++;
        if (read.size() != 1 || read.get_int(0, 0) != expected) wrong++;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  REQUIRE(wrong.load() == 0);
}

TEST_CASE("after DDL a new prepare binds the new catalog, not a cached plan") {
  TempDir dir;
  auto backend = solo_at(dir);
  auto conn = backend->connect();
  conn->execute_script("CREATE TABLE t (k INTEGER NOT NULL, v INTEGER NOT NULL, PRIMARY KEY (k))");
  write_sql(*conn, "INSERT INTO t VALUES (?, ?)", {int64_t{1}, int64_t{5}});
  const std::string select = "SELECT v FROM t WHERE k = ?";
  conn->prepare(select);  // cached now

  conn->execute_script("DROP TABLE t");
  conn->execute_script("CREATE TABLE t (k INTEGER NOT NULL, v TEXT NOT NULL, PRIMARY KEY (k))");
  write_sql(*conn, "INSERT INTO t VALUES (?, ?)", {int64_t{1}, std::string("five")});
  auto other = backend->connect();
  StmtId stmt = other->prepare(select);
  Rows rows;
  other->read([&](Txn& txn) {
    txn.exec(stmt, {int64_t{1}}, &rows);
    return Outcome::kCommit;
  });
  REQUIRE(rows.size() == 1);
  REQUIRE(rows.get_text(0, 0) == "five");
}

TEST_CASE("destroy() drops the plans with the database") {
  TempDir dir;
  auto backend = solo_at(dir);
  {
    auto conn = backend->connect();
    conn->execute_script("CREATE TABLE t (k INTEGER NOT NULL, PRIMARY KEY (k))");
    conn->prepare("SELECT k FROM t");
  }
  backend->destroy();
  auto conn = backend->connect();
  // The table is gone: preparing must fail (a cached plan would succeed).
  REQUIRE_THROWS_AS(conn->prepare("SELECT k FROM t"), BackendError);
}

// Regression (probe item 4 of session 36): huge_page_share was the
// process's AnonHugePages over the arenas in use, 1.006-1.041 in runs: the
// prefaulter's ready arenas (touched ahead, not yet in use) were counted
// above but not below. A small database has few arenas in use beside its
// two ready ones, so the old share was far above 1 wherever the kernel
// gives huge pages.
TEST_CASE("huge_page_share is a share: between 0 and 1") {
  TempDir dir;
  auto backend = solo_at(dir);
  auto conn = backend->connect();
  conn->execute_script("CREATE TABLE t (k INTEGER NOT NULL, v TEXT NOT NULL, PRIMARY KEY (k))");
  const StmtId insert = conn->prepare("INSERT INTO t VALUES (?, ?)");
  conn->write([&](Txn& txn) {
    for (int64_t key = 0; key < 20000; ++key) txn.exec(insert, {key, std::string(40, 'x')});
    return Outcome::kCommit;
  });
  // Time for the prefaulter to make its ready arenas.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::map<std::string, double> metrics;
  for (const auto& [name, value] : backend->metrics()) metrics[name] = value;
  REQUIRE(metrics.count("huge_page_share") == 1);
  INFO("arena_bytes " << metrics["arena_bytes"]);
  CHECK(metrics["huge_page_share"] >= 0.0);
  CHECK(metrics["huge_page_share"] <= 1.0);
}

// Regression (probe item 4): destroy() removed every file whose name began
// with "wal-" or "checkpoint-", the user's notes included.
TEST_CASE("destroy() removes only the engine's own files") {
  TempDir dir;
  fs::create_directories(dir.path());
  const std::vector<std::string> users = {"checkpoint-notes.txt",
                                          "wal-e.conf",
                                          "wal-000001.log.bak",
                                          "wal-1.log",
                                          "checkpoint-00000000000000000007.ckpt.orig",
                                          "keep.txt"};
  const std::vector<std::string> engines = {"checkpoint-00000000000000000042.tmp",
                                            "checkpoint.spare", "solo.db.tmp"};
  auto touch = [&](const std::string& name) { std::ofstream(dir.path() + "/" + name) << "x\n"; };
  for (const std::string& name : users) touch(name);
  touch("tpcc-owned");  // tpcc's directory (owned_dir.h), with the user's files in it
  auto backend = solo_at(dir);
  for (const std::string& name : engines) touch(name);
  REQUIRE(fs::exists(dir.path() + "/wal-000000.log"));
  const std::string marker_before = read_file(dir.path() + "/solo.db");
  REQUIRE(marker_before.size() == 32);
  backend->destroy();
  // The old database's marker went too: the fresh database has its own.
  CHECK(read_file(dir.path() + "/solo.db") != marker_before);
  for (const std::string& name : users) {
    INFO(name);
    CHECK(fs::exists(dir.path() + "/" + name));
  }
  for (const std::string& name : engines) {
    INFO(name);
    CHECK_FALSE(fs::exists(dir.path() + "/" + name));
  }
  // The fresh database works.
  auto conn = backend->connect();
  conn->execute_script("CREATE TABLE t (k INTEGER NOT NULL, PRIMARY KEY (k))");
}

// Regression (session 44): a database without a checkpoint whose log
// segments were removed opened as a new, empty one; its marker (solo.db,
// engine/README.md "Database marker") now says that there was one, and a
// reading command reports the engine's refusal, not "no TPC-C database".
TEST_CASE("must_exist: a directory holding only the marker is refused by the engine") {
  TempDir dir;
  BackendOptions options;
  options.engine = "solo";
  options.dir = dir.path() + "/db";
  make_backend(options).reset();
  for (const auto& entry : fs::directory_iterator(options.dir)) {
    if (entry.path().filename().string().starts_with("wal-")) fs::remove(entry.path());
  }
  options.must_exist = true;
  REQUIRE_THROWS_WITH(
      make_backend(options),
      Catch::Contains("solo: cannot open " + options.dir) &&
          Catch::Contains("log segments missing: database marker " + options.dir + "/solo.db"));
}

// Regression (probe item 9): `check` and `run --no-load` opened an empty
// directory (or a SQLite one) and so created a database: 160 MB of log.
TEST_CASE("must_exist: no database in the directory is refused and nothing is created") {
  TempDir dir;
  BackendOptions options;
  options.engine = "solo";
  options.dir = dir.path() + "/missing";
  options.must_exist = true;
  REQUIRE_THROWS_WITH(make_backend(options), Catch::Contains("no TPC-C database at"));
  CHECK_FALSE(fs::exists(options.dir));

  options.dir = dir.path() + "/other-engine";
  fs::create_directories(options.dir);
  std::ofstream(options.dir + "/tpcc.sqlite") << "not solo\n";
  std::ofstream(options.dir + "/wal-notes.txt") << "not solo either\n";
  REQUIRE_THROWS_WITH(make_backend(options), Catch::Contains("no TPC-C database at"));
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(options.dir)) ++files;
  CHECK(files == 2);

  // A directory holding solo's files is opened (made in a directory of
  // tpcc's: owned_dir.h).
  std::ofstream(options.dir + "/tpcc-owned") << "made by this test\n";
  options.must_exist = false;
  make_backend(options).reset();
  options.must_exist = true;
  CHECK_NOTHROW(make_backend(options));
}

// Regression (probe, session 39): `tpcc load --dir D` deleted the solo
// database a user kept in D. A non-empty directory without the tpcc-owned
// marker is refused before anything is created or removed in it; an empty
// one is marked and used; reading (must_exist) needs no marker.
TEST_CASE("a directory tpcc did not make is refused, and left as it was") {
  TempDir dir;
  BackendOptions options;
  options.engine = "solo";
  options.dir = dir.path() + "/db";
  make_backend(options).reset();  // a database in a new directory, marked
  REQUIRE(fs::exists(options.dir + "/tpcc-owned"));
  fs::remove(options.dir + "/tpcc-owned");  // now it is someone else's database
  std::map<std::string, uintmax_t> before;
  for (const auto& entry : fs::directory_iterator(options.dir)) {
    before[entry.path().filename().string()] = entry.file_size();
  }
  REQUIRE_THROWS_WITH(make_backend(options),
                      Catch::Contains("solo: refusing to delete the database in '" + options.dir) &&
                          Catch::Contains("tpcc-owned") &&
                          Catch::Contains("new or empty directory"));
  std::map<std::string, uintmax_t> after;
  for (const auto& entry : fs::directory_iterator(options.dir)) {
    after[entry.path().filename().string()] = entry.file_size();
  }
  CHECK(after == before);
  // Opened to read (check, run --no-load): allowed, and destroy() refused.
  options.must_exist = true;
  auto reader = make_backend(options);
  CHECK_THROWS_WITH(reader->destroy(), Catch::Contains("refusing to delete"));
  CHECK(reader->connect() != nullptr);  // still open after the refusal
  reader.reset();
  CHECK_FALSE(fs::exists(options.dir + "/tpcc-owned"));

  // An empty directory is taken and marked.
  options.must_exist = false;
  options.dir = dir.path() + "/empty";
  fs::create_directories(options.dir);
  make_backend(options)->destroy();
  CHECK(fs::exists(options.dir + "/tpcc-owned"));
}

// The command line refused --solo-checkpoint-mib 0, but BackendOptions built
// in code passed 0 on, and solo read it as "never checkpoint on its own".
TEST_CASE("a checkpoint trigger of 0 MiB or over 1 TiB is refused when the backend is made") {
  TempDir dir;
  BackendOptions options;
  options.engine = "solo";
  options.dir = dir.path() + "/db";
  for (int64_t mib : {int64_t{0}, kMaxSoloCheckpointMib + 1, int64_t{1} << 44}) {
    INFO(mib);
    options.solo_checkpoint_mib = mib;
    REQUIRE_THROWS_WITH(make_backend(options),
                        Catch::Contains("checkpoint trigger of " + std::to_string(mib) +
                                        " MiB: must be 1 to 1048576"));
    CHECK_FALSE(fs::exists(options.dir));  // refused before anything was created
  }
  // (Not opened at the largest: the engine sizes its log ring from the trigger.)
  for (int64_t mib : {int64_t{-1}, int64_t{1}}) {
    INFO(mib);
    options.solo_checkpoint_mib = mib;
    CHECK_NOTHROW(make_backend(options));
  }
}

// Loads W=1 from `seed` into `backend`.
LoadInfo load_one_warehouse(Backend& backend, uint64_t seed) {
  LoadOptions load_options;
  load_options.warehouses = 1;
  load_options.seed = seed;
  load_options.progress = false;
  return load_database(backend, load_options);
}

// solo's backend with a driver that is slow to take each answer: every
// finish_write() returns `delay` late, as if the driver were busy with
// another terminal's work.
class SlowTakeConnection final : public Connection {
 public:
  SlowTakeConnection(std::unique_ptr<Connection> inner, std::chrono::milliseconds delay)
      : inner_(std::move(inner)), delay_(delay) {}
  StmtId prepare(const std::string& sql) override { return inner_->prepare(sql); }
  TxnResult write(const TxnBody& body) override { return inner_->write(body); }
  bool supports_submit() const override { return inner_->supports_submit(); }
  void submit_write(const TxnBody& body) override { inner_->submit_write(body); }
  bool write_answered() const override { return inner_->write_answered(); }
  TxnResult finish_write() override {
    TxnResult result = inner_->finish_write();
    std::this_thread::sleep_for(delay_);
    return result;
  }
  TxnResult read(const TxnBody& body) override { return inner_->read(body); }
  void execute_script(const std::string& sql) override { inner_->execute_script(sql); }

 private:
  std::unique_ptr<Connection> inner_;
  std::chrono::milliseconds delay_;
};

class SlowTakeBackend final : public Backend {
 public:
  SlowTakeBackend(std::unique_ptr<Backend> inner, std::chrono::milliseconds delay)
      : inner_(std::move(inner)), delay_(delay) {}
  std::string name() const override { return inner_->name(); }
  bool exists() override { return inner_->exists(); }
  void destroy() override { inner_->destroy(); }
  std::unique_ptr<Connection> connect() override {
    return std::make_unique<SlowTakeConnection>(inner_->connect(), delay_);
  }
  int load_parallelism() const override { return 1; }
  std::string describe_config() const override { return inner_->describe_config(); }

 private:
  std::unique_ptr<Backend> inner_;
  std::chrono::milliseconds delay_;
};

TEST_CASE("a driver times each answer when it first sees it, not when it comes to its terminal") {
  TempDir dir;
  auto solo = solo_at(dir);
  LoadInfo info = load_one_warehouse(*solo, 6);
  // Four terminals, each answer taken 20 ms late: a terminal's answer comes
  // within microseconds of its submit, while the driver sleeps in the taking
  // of the terminal ahead of it. Timed when the driver comes to the terminal,
  // a write would take the three others' 20 ms and its own (~80 ms); timed
  // when first seen, about one other's (~20 ms).
  const auto delay = std::chrono::milliseconds(20);
  SlowTakeBackend backend(std::move(solo), delay);
  RunOptions options;
  options.terminals = 4;
  options.max_transactions = 60;
  options.drivers = 1;
  options.progress = false;
  RunResult result = run_terminals(backend, info, options);
  INFO(result.error);
  REQUIRE(result.error.empty());
  REQUIRE(result.drivers == 1);
  Histogram writes;
  for (TxnType type : {TxnType::kNewOrder, TxnType::kPayment, TxnType::kDelivery}) {
    const TypeStats& stats = result.per_type[static_cast<int>(type)];
    writes.merge(stats.latency);
    if (stats.count > 0) CHECK(stats.answer_latency.max() <= stats.latency.max());
  }
  REQUIRE(writes.count() >= 40);
  INFO("write latency p50 " << writes.quantile(0.5) << " us, max " << writes.max() << " us");
  CHECK(writes.quantile(0.5) < 2 * std::chrono::microseconds(delay).count());
}

// Each terminal deals its types from a deck (tpcc/deck.h), so one terminal
// that runs whole decks runs the mix exactly; a fresh roll per transaction
// (until session 37) missed it on nearly every run.
TEST_CASE("one terminal's 200 transactions are two decks: exactly 90/86/8/8/8") {
  TempDir dir;
  auto backend = solo_at(dir);
  LoadInfo info = load_one_warehouse(*backend, 8);
  for (int drivers : {1, 0}) {  // on a driver thread, and on a thread of its own
    RunOptions options;
    options.terminals = 1;
    options.max_transactions = 200;
    options.drivers = drivers;
    options.progress = false;
    options.seed = 3;
    RunResult result = run_terminals(*backend, info, options);
    INFO("drivers " << drivers << ": " << result.error);
    REQUIRE(result.error.empty());
    CHECK(result.completed == 200);
    const std::array<uint64_t, kTxnTypes> expected = {90, 86, 8, 8, 8};
    for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
      INFO(txn_type_name(static_cast<TxnType>(type_idx)));
      CHECK(result.per_type[type_idx].count == expected[type_idx]);
    }
    // What the mix audit judges the shares with: the decks were dealt whole.
    CHECK(result.mix.total == 200);
    CHECK(result.mix.deliveries == 8);
    CHECK(result.mix.stock_levels == 8);
    CHECK(result.mix.partial_decks == 0);
  }
}

TEST_CASE("a driver thread runs a split Delivery as ten transactions, one after another") {
  TempDir dir;
  auto backend = solo_at(dir);
  LoadInfo info = load_one_warehouse(*backend, 5);
  Journal journal;
  RunOptions options;
  options.terminals = 4;
  options.max_transactions = 600;
  options.drivers = 1;
  options.delivery_districts = 1;
  options.journal = &journal;
  options.progress = false;
  RunResult result = run_terminals(*backend, info, options);
  INFO(result.error);
  REQUIRE(result.error.empty());
  CHECK(result.drivers == 1);  // submitted writes: the driver's continuation path
  // The process's CPU split by thread: the owner's and the driver's shares
  // are there, and the split adds up to the whole.
  {
    std::map<std::string, double> split(result.cpu_by_thread.begin(), result.cpu_by_thread.end());
    INFO("cpu " << result.cpu_us_per_txn << " us/txn");
    CHECK(split["solo-owner"] > 0);
    CHECK(split["tpcc-driver"] > 0);
    CHECK(split.count("tpcc-terminal") == 0);
    double sum = 0;
    for (const auto& [name, value] : split) sum += value;
    CHECK(sum == Approx(result.cpu_us_per_txn).epsilon(0.05));
  }
  const uint64_t deliveries = result.per_type[static_cast<int>(TxnType::kDelivery)].count;
  REQUIRE(deliveries > 0);
  // Each write is also timed to the owner's answer, which comes no later
  // than the driver takes it; reads run on the driver and have no such time.
  for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
    const TypeStats& stats = result.per_type[type_idx];
    const auto type = static_cast<TxnType>(type_idx);
    INFO(txn_type_name(type));
    const bool write =
        type == TxnType::kNewOrder || type == TxnType::kPayment || type == TxnType::kDelivery;
    CHECK(stats.answer_latency.count() == (write ? stats.count : 0));
    if (write) {
      CHECK(stats.answer_latency.quantile(0.5) <= stats.latency.quantile(0.5));
      CHECK(stats.answer_latency.max() <= stats.latency.max());
      CHECK(stats.answer_latency.quantile(0.5) > 0);
    }
  }
  // Each business Delivery (its carrier and time) left ten one-district
  // transactions, districts 1 to 10 in commit order, none missing.
  std::map<std::pair<int32_t, int64_t>, std::vector<int32_t>> districts_of;
  size_t parts = 0;
  for (const JournalEntry& entry : journal.sorted()) {
    const auto* part = std::get_if<DeliveryInput>(&entry.input);
    if (part == nullptr) continue;
    ++parts;
    CHECK(part->first_district == part->last_district);
    districts_of[{part->carrier_id, part->delivery_d}].push_back(part->first_district);
  }
  CHECK(parts == 10 * deliveries);
  CHECK(districts_of.size() == deliveries);
  const std::vector<int32_t> all = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (const auto& [key, districts] : districts_of) CHECK(districts == all);
  auto conn = backend->connect();
  for (const auto& condition : check_consistency(*conn, false)) {
    INFO("condition " << condition.id << ": " << condition.detail);
    CHECK(condition.ok);
  }
}

}  // namespace
}  // namespace tpcc
