// Database::submit/finish: many writes in flight from one thread run in the
// order they were submitted, answer like write(), survive close(), and are
// durable when answered OK with a directory.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "durable_util.h"
#include "test_util.h"

using namespace solo;

namespace {

// Inserts account `id` and notes the order it ran in on the owner.
struct Insert {
  TableId table = 0;
  int64_t id = 0;
  std::vector<int64_t>* ran = nullptr;
  bool fail = false;
  Status operator()(WriteTxn& txn) {
    ran->push_back(id);
    Status status = txn.insert(table, {Value::Int(id), Value::String("n"), Value::Int(id)});
    if (!status.ok()) return status;
    return fail ? Status::InvalidArgument("asked to fail") : Status::OK();
  }
};

TableId make_accounts(Database& db) {
  TableId table = 0;
  REQUIRE(db.write([&](WriteTxn& txn) {
              table = *txn.create_table(test::accounts_schema());
              return Status::OK();
            }).ok());
  return table;
}

int64_t count_rows(Database& db, TableId table) {
  int64_t rows = 0;
  REQUIRE(db.read([&](ReadTxn& txn) {
              auto cursor = txn.scan(table, KeyRange::All(false));
              if (!cursor.ok()) return cursor.status();
              for (; cursor->valid(); cursor->next()) ++rows;
              return Status::OK();
            }).ok());
  return rows;
}

}  // namespace

TEST_CASE("submitted writes run in submission order and answer like write()") {
  auto db = test::open_db();
  TableId table = make_accounts(*db);
  std::vector<int64_t> ran;  // owner thread only, read after every finish
  constexpr int kWrites = 64;
  std::vector<Insert> bodies(kWrites);
  std::vector<PendingWrite> pending(kWrites);
  for (int round = 0; round < 20; ++round) {
    for (int idx = 0; idx < kWrites; ++idx) {
      // Every 7th write fails (and is undone); write 5 of each round repeats
      // the key of write 6 of the round before (a duplicate, refused).
      int64_t id = round * kWrites + idx;
      if (round > 0 && idx == 5) id = (round - 1) * kWrites + 6;
      bodies[idx] = Insert{table, id, &ran, idx % 7 == 3};
      REQUIRE(db->submit(pending[idx], bodies[idx]).ok());
      // A second submit of the same PendingWrite while in flight is refused.
      if (idx == 0) CHECK(db->submit(pending[idx], bodies[idx]).code() == Status::Code::kInvalidArgument);
    }
    for (int idx = 0; idx < kWrites; ++idx) {
      Status status = db->finish(pending[idx]);
      CHECK(pending[idx].done());
      CHECK_FALSE(pending[idx].in_flight());
      if (idx % 7 == 3) {
        CHECK(status.code() == Status::Code::kInvalidArgument);
      } else if (round > 0 && idx == 5) {
        CHECK(status.code() == Status::Code::kAlreadyExists);
      } else {
        CHECK(status.ok());
      }
    }
  }
  // Submission order is execution order.
  REQUIRE(ran.size() == 20u * kWrites);
  for (size_t idx = 0; idx < ran.size(); ++idx) {
    int64_t expected = static_cast<int64_t>(idx);
    if (idx >= kWrites && idx % kWrites == 5) expected += 1 - kWrites;
    CHECK(ran[idx] == expected);
  }
  // Committed: all but the failures and the duplicates.
  int64_t failed = 0;
  for (int idx = 0; idx < kWrites; ++idx) failed += idx % 7 == 3 ? 1 : 0;
  const int64_t duplicates = 19;  // idx 5 of rounds 1..19
  CHECK(count_rows(*db, table) == 20 * (kWrites - failed) - duplicates);
  // finish() of a PendingWrite that is not in flight is refused.
  CHECK(db->finish(pending[0]).code() == Status::Code::kInvalidArgument);
}

TEST_CASE("writes in flight when close() is called are answered; later submits are refused") {
  auto db = test::open_db();
  TableId table = make_accounts(*db);
  std::vector<int64_t> ran;
  constexpr int kWrites = 200;
  std::vector<Insert> bodies(kWrites);
  std::vector<PendingWrite> pending(kWrites);
  std::atomic<bool> submitted_all{false};
  std::thread submitter([&] {
    for (int idx = 0; idx < kWrites; ++idx) {
      bodies[idx] = Insert{table, idx, &ran, false};
      Status status = db->submit(pending[idx], bodies[idx]);
      if (!status.ok()) {
        CHECK(status.code() == Status::Code::kShutdown);
        break;
      }
    }
    submitted_all = true;
  });
  db->close();
  submitter.join();
  int64_t answered_ok = 0;
  for (int idx = 0; idx < kWrites; ++idx) {
    if (!pending[idx].in_flight()) continue;
    Status status = db->finish(pending[idx]);
    CHECK((status.ok() || status.code() == Status::Code::kShutdown));
    answered_ok += status.ok() ? 1 : 0;
  }
  // Those answered OK ran, and nothing else did.
  CHECK(static_cast<int64_t>(ran.size()) == answered_ok);
  PendingWrite late;
  Insert body{table, kWrites, &ran, false};
  CHECK(db->submit(late, body).code() == Status::Code::kShutdown);
  CHECK_FALSE(late.in_flight());
}

TEST_CASE("a PendingWrite destroyed in flight waits for its answer") {
  auto db = test::open_db();
  TableId table = make_accounts(*db);
  std::vector<int64_t> ran;
  Insert body{table, 1, &ran, false};
  {
    PendingWrite pending;
    REQUIRE(db->submit(pending, body).ok());
  }
  CHECK(count_rows(*db, table) == 1);
}

TEST_CASE("writes answered OK through submit are durable") {
  test::TempDir dir;
  std::vector<int64_t> ran;
  constexpr int kWrites = 300;
  TableId table = 0;
  {
    Options options;
    options.dir = dir.path;
    auto db = test::open_db(options);
    table = make_accounts(*db);
    std::vector<Insert> bodies(kWrites);
    std::vector<PendingWrite> pending(kWrites);
    for (int idx = 0; idx < kWrites; ++idx) {
      bodies[idx] = Insert{table, idx, &ran, false};
      REQUIRE(db->submit(pending[idx], bodies[idx]).ok());
    }
    for (int idx = 0; idx < kWrites; ++idx) REQUIRE(db->finish(pending[idx]).ok());
  }
  Options options;
  options.dir = dir.path;
  auto reopened = test::open_db(options);
  CHECK(count_rows(*reopened, table) == kWrites);
}

TEST_CASE("a finished write tells when the owner answered it, not when it was collected") {
  test::TempDir dir;
  for (bool durable : {false, true}) {
    INFO("with a directory: " << durable);
    Options options;
    if (durable) options.dir = dir.path + "/db";  // answered once its round is durable
    auto db = test::open_db(options);
    TableId table = make_accounts(*db);
    std::vector<int64_t> ran;
    Insert body{table, 1, &ran, false};
    PendingWrite pending;
    CHECK(pending.answered_ns() == 0);  // never submitted
    const auto clock_ns = [] {
      return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now().time_since_epoch())
                                       .count());
    };
    for (int64_t id = 1; id <= 3; ++id) {
      body.id = id;
      const uint64_t submitted = clock_ns();
      REQUIRE(db->submit(pending, body).ok());
      CHECK(pending.answered_ns() == 0);  // in flight
      while (!pending.done()) std::this_thread::yield();
      const uint64_t seen_done = clock_ns();
      // Collected 20 ms after the answer: the time is the owner's, not ours.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const uint64_t collected = clock_ns();
      REQUIRE(db->finish(pending).ok());
      CHECK(pending.answered_ns() >= submitted);
      CHECK(pending.answered_ns() <= seen_done);
      CHECK(pending.answered_ns() < collected - 15'000'000);
    }
  }
}

TEST_CASE("submit and finish are refused on the owner thread") {
  auto db = test::open_db();
  TableId table = make_accounts(*db);
  std::vector<int64_t> ran;
  Insert body{table, 7, &ran, false};
  PendingWrite inner;
  Status submitted;
  Status finished;
  REQUIRE(db->write([&](WriteTxn&) {
              submitted = db->submit(inner, body);  // would wait for itself
              finished = db->finish(inner);
              return Status::OK();
            }).ok());
  CHECK(submitted.code() == Status::Code::kInvalidArgument);
  CHECK(finished.code() == Status::Code::kInvalidArgument);  // not in flight
  CHECK_FALSE(inner.in_flight());
  CHECK(ran.empty());
}
