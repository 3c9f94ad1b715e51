#include "tpcc/journal.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "tests/tpcc/loaded_db.h"
#include "tpcc/driver.h"
#include "tpcc/replay.h"
#include "tpcc/schema.h"
#include "tpcc/table_compare.h"

namespace fs = std::filesystem;

namespace {

// A copy of the shared loaded database, as its own backend.
std::unique_ptr<tpcc::Backend> copy_of_loaded(const std::string& name) {
  auto& db = tpcc_test::loaded_w1();
  std::string dir = tpcc_test::private_dir(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(db.dir)) {
    fs::copy_file(entry.path(), dir + "/" + entry.path().filename().string());
  }
  tpcc::BackendOptions options;
  options.engine = "sqlite";
  options.dir = dir;
  return tpcc::make_backend(options);
}

struct ScratchDirs {
  ~ScratchDirs() {
    for (const char* name : {"journal-a", "journal-b", "journal-c"}) {
      fs::remove_all(tpcc_test::private_dir(name));
    }
    fs::remove(path);
  }
  std::string path = tpcc_test::private_dir("journal") + ".txt";
};

std::string write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  return path;
}

}  // namespace

TEST_CASE("a journal round-trips through its file") {
  ScratchDirs scratch;
  tpcc::NewOrderInput no;
  no.w_id = 1;
  no.d_id = 3;
  no.c_id = 42;
  no.ol_cnt = 2;
  no.lines[0] = {7, 1, 3};
  no.lines[1] = {99999, 2, 10};
  no.entry_d = 1800000000123456;
  tpcc::PaymentInput by_name;
  by_name.w_id = 1;
  by_name.d_id = 2;
  by_name.c_w_id = 2;
  by_name.c_d_id = 5;
  by_name.by_name = true;
  by_name.c_last = "BARPRESABLE";
  by_name.h_amount = 123456;
  by_name.h_date = 1800000000000001;
  tpcc::PaymentInput by_id = by_name;
  by_id.by_name = false;
  by_id.c_last.clear();
  by_id.c_id = 2999;
  tpcc::DeliveryInput delivery{2, 10, 1800000000000002};
  tpcc::DeliveryInput part = delivery;  // a database transaction of a split Delivery
  part.first_district = 4;
  part.last_district = 6;
  std::vector<tpcc::JournalEntry> entries = {
      {6, no}, {7, by_name}, {8, by_id}, {9, delivery}, {10, part}};
  tpcc::write_journal(scratch.path, {2, 77, "sqlite"}, entries);

  tpcc::JournalHeader header;
  auto read = tpcc::read_journal(scratch.path, &header);
  CHECK(header.warehouses == 2);
  CHECK(header.seed == 77);
  CHECK(header.engine == "sqlite");
  REQUIRE(read.size() == 5);
  CHECK(read[0].seq == 6);
  CHECK(read[4].seq == 10);
  const auto& read_no = std::get<tpcc::NewOrderInput>(read[0].input);
  CHECK(read_no.c_id == 42);
  CHECK(read_no.ol_cnt == 2);
  CHECK(read_no.lines[1].i_id == 99999);
  CHECK(read_no.lines[1].supply_w_id == 2);
  CHECK(read_no.lines[1].quantity == 10);
  CHECK(read_no.entry_d == 1800000000123456);
  const auto& read_name = std::get<tpcc::PaymentInput>(read[1].input);
  CHECK(read_name.by_name);
  CHECK(read_name.c_last == "BARPRESABLE");
  CHECK(read_name.h_amount == 123456);
  const auto& read_id = std::get<tpcc::PaymentInput>(read[2].input);
  CHECK_FALSE(read_id.by_name);
  CHECK(read_id.c_id == 2999);
  const auto& read_delivery = std::get<tpcc::DeliveryInput>(read[3].input);
  CHECK(read_delivery.carrier_id == 10);
  CHECK(read_delivery.delivery_d == 1800000000000002);
  CHECK(read_delivery.first_district == 1);
  CHECK(read_delivery.last_district == 10);
  const auto& read_part = std::get<tpcc::DeliveryInput>(read[4].input);
  CHECK(read_part.carrier_id == 10);
  CHECK(read_part.first_district == 4);
  CHECK(read_part.last_district == 6);
}

TEST_CASE("a damaged journal is refused with the file and line") {
  ScratchDirs scratch;
  std::string header = "# solo-tpcc-journal 1 warehouses=1 seed=1 engine=sqlite\n";
  auto refuses = [&](const std::string& body, const std::string& needle) {
    write_text(scratch.path, header + body);
    tpcc::JournalHeader read_header;
    try {
      tpcc::read_journal(scratch.path, &read_header);
      FAIL("accepted: " << body);
    } catch (const std::runtime_error& error) {
      INFO(error.what());
      CHECK(std::string(error.what()).find(needle) != std::string::npos);
    }
  };
  refuses("N 1 1 3 42 1800000000000000 2 7:1:3\n", ":2: expected 9 fields");  // torn line
  refuses("D 1 1 7 100\nD 1 1 7 200\n", ":3: sequence numbers must increase");
  refuses("X 1 1\n", "unknown record kind 'X'");
  refuses("D 1 1 11 100\n", "out of range");
  refuses("D 1 1 7 100 6 5\n", "out of range");     // districts the wrong way round
  refuses("D 1 1 7 100 0 3\n", "out of range");     // no district 0
  refuses("D 1 1 7 100 4\n", "expected 5 fields");  // a district range torn in half
  refuses("P 1 1 2 1 5 12x - 100 5\n", "'12x' is not an integer");
  // Regression (probe item 6): a removed record and a journal cut at a line
  // boundary were replayed without a word.
  refuses("D 1 1 7 100\nD 3 1 7 200\n# end records=2\n",
          ":3: sequence number 2 is missing (found 3 after 1)");
  refuses("D 4 1 7 100\nD 9 1 7 200\n# end records=2\n",
          ":3: sequence numbers 5..8 are missing (found 9 after 4)");
  refuses("D 1 1 7 100\nD 2 1 7 200\n",
          "no end line ('# end records=N') after line 3: the "
          "journal is cut short");
  refuses("D 2 1 7 100\nD 3 1 7 200\n# end records=3\n",
          ":4: the end line counts 3 records, but the journal holds 2");
  refuses("D 1 1 7 100\n# end records=1\nD 2 1 7 200\n", ":4: a line after the end line");
  refuses("", "no end line");
  {
    write_text(scratch.path, header + "D 1 1 7 100\nD 2 1 7 200\n# end records=2\n");
    tpcc::JournalHeader read_header;
    CHECK(tpcc::read_journal(scratch.path, &read_header).size() == 2);
    write_text(scratch.path, header + "# end records=0\n");
    CHECK(tpcc::read_journal(scratch.path, &read_header).empty());
  }
  write_text(scratch.path, "hello\n");
  tpcc::JournalHeader read_header;
  CHECK_THROWS_WITH(tpcc::read_journal(scratch.path, &read_header),
                    Catch::Contains("not a solo TPC-C journal"));
  CHECK_THROWS_WITH(tpcc::read_journal("/nonexistent/journal", &read_header),
                    Catch::Contains("cannot open journal"));
}

TEST_CASE("table comparison finds a changed, a missing and an extra row") {
  ScratchDirs scratch;
  auto a = copy_of_loaded("journal-a");
  auto b = copy_of_loaded("journal-b");
  auto conn_a = a->connect();
  auto conn_b = b->connect();
  for (const auto& diff : tpcc::compare_tables(*conn_a, *conn_b)) {
    INFO(diff.table << "\n" << diff.examples);
    CHECK(diff.identical());
  }
  tpcc::StmtId change = conn_b->prepare("UPDATE customer SET c_balance = c_balance + 0.01 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 3");
  tpcc::StmtId remove = conn_b->prepare("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 4 AND no_o_id = 2500");
  tpcc::StmtId add = conn_b->prepare("INSERT INTO history VALUES (1, 1, 1, 1, 1, '2026-01-01 00:00:00', 1.00, 'extra')");
  conn_b->write([&](tpcc::Txn& txn) {
    txn.exec(change, {});
    txn.exec(remove, {});
    txn.exec(add, {});
    return tpcc::Outcome::kCommit;
  });
  for (const auto& diff : tpcc::compare_tables(*conn_a, *conn_b)) {
    INFO(diff.table << "\n" << diff.examples);
    if (diff.table == "customer") {
      CHECK(diff.differing == 1);
      CHECK(diff.examples.find("c_balance") == std::string::npos);  // values, not names
      CHECK(diff.examples.find("-9.99") != std::string::npos);      // B's balance, at scale
    } else if (diff.table == "new_order") {
      CHECK(diff.differing == 1);
      CHECK(diff.examples.find("only in A: (1, 4, 2500)") != std::string::npos);
    } else if (diff.table == "history") {
      CHECK(diff.differing == 1);
      CHECK(diff.examples.find("only in B:") != std::string::npos);
    } else {
      CHECK(diff.identical());
    }
  }
}

TEST_CASE("a journaled run replayed on a fresh copy gives the same tables") {
  ScratchDirs scratch;
  auto ran = copy_of_loaded("journal-a");
  auto replayed = copy_of_loaded("journal-c");
  auto& db = tpcc_test::loaded_w1();
  tpcc::Journal journal;
  tpcc::RunOptions options;
  options.terminals = 4;
  options.max_transactions = 1500;
  options.progress = false;
  options.journal = &journal;
  options.delivery_districts = 3;  // each Delivery as 4 transactions: 1-3, 4-6, 7-9, 10
  tpcc::RunResult result = tpcc::run_terminals(*ran, db.info, options);
  INFO(result.error);
  REQUIRE(result.error.empty());
  CHECK(result.completed == 1500);
  auto entries = journal.sorted();
  // A terminal runs its Delivery's parts one after another, in district order.
  std::map<std::pair<int32_t, int64_t>, std::vector<int32_t>> parts_of;
  for (const auto& entry : entries) {
    if (const auto* part = std::get_if<tpcc::DeliveryInput>(&entry.input)) {
      CHECK(part->last_district - part->first_district == (part->first_district == 10 ? 0 : 2));
      parts_of[{part->carrier_id, part->delivery_d}].push_back(part->first_district);
    }
  }
  const uint64_t deliveries = result.per_type[static_cast<int>(tpcc::TxnType::kDelivery)].count;
  CHECK(deliveries > 0);
  CHECK(parts_of.size() == deliveries);
  for (const auto& [key, firsts] : parts_of) CHECK(firsts == std::vector<int32_t>{1, 4, 7, 10});
  CHECK(entries.size() > 1000);  // ~92% of the mix writes; rolled-back New-Orders are not journaled
  for (size_t idx = 0; idx < entries.size(); ++idx) REQUIRE(entries[idx].seq == static_cast<int64_t>(idx + 1));
  tpcc::write_journal(scratch.path, {1, db.info.seed, "sqlite"}, entries);
  tpcc::JournalHeader header;
  auto reread = tpcc::read_journal(scratch.path, &header);
  REQUIRE(reread.size() == entries.size());

  auto replay_conn = replayed->connect();
  tpcc::replay_journal(*replay_conn, reread, false);
  auto ran_conn = ran->connect();
  for (const auto& diff : tpcc::compare_tables(*ran_conn, *replay_conn)) {
    INFO(diff.table << "\n" << diff.examples);
    CHECK(diff.identical());
  }
}
