#include "tpcc/journal.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tpcc/schema.h"

namespace tpcc {
namespace {

constexpr const char* kMagic = "# solo-tpcc-journal 1";
// The last line: "# end records=<number of records>".
constexpr const char* kEndPrefix = "# end records=";

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream stream(line);
  std::string field;
  while (stream >> field) fields.push_back(field);
  return fields;
}

class LineParser {
 public:
  LineParser(const std::string& path, int line_no, std::vector<std::string> fields)
      : path_(path), line_no_(line_no), fields_(std::move(fields)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(fmt::format("{}:{}: {}", path_, line_no_, what));
  }
  void expect_count(size_t count) const {
    if (fields_.size() != count) {
      fail(fmt::format("expected {} fields, found {}", count, fields_.size()));
    }
  }
  size_t count() const { return fields_.size(); }
  const std::string& text(size_t idx) const { return fields_.at(idx); }
  int64_t integer(size_t idx, int64_t low, int64_t high) const {
    return parse_int(fields_.at(idx), low, high);
  }
  int64_t parse_int(const std::string& field, int64_t low, int64_t high) const {
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || ptr != field.data() + field.size()) {
      fail(fmt::format("'{}' is not an integer", field));
    }
    if (value < low || value > high) {
      fail(fmt::format("{} is out of range [{}, {}]", value, low, high));
    }
    return value;
  }

 private:
  const std::string& path_;
  int line_no_;
  std::vector<std::string> fields_;
};

constexpr int64_t kMaxId = 1'000'000'000;
constexpr int64_t kMaxTime = INT64_MAX;

}  // namespace

void Journal::add(JournalEntry entry) {
  std::lock_guard lock(mutex_);
  entries_.push_back(std::move(entry));
}

std::vector<JournalEntry> Journal::sorted() const {
  std::lock_guard lock(mutex_);
  std::vector<JournalEntry> entries = entries_;
  std::sort(entries.begin(), entries.end(),
            [](const JournalEntry& a, const JournalEntry& b) { return a.seq < b.seq; });
  return entries;
}

size_t Journal::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

JournalSequence::JournalSequence(Connection& conn)
    : bump_(conn.prepare("UPDATE tpcc_meta SET value = value + 1 WHERE name = 'journal_seq'")),
      read_(conn.prepare("SELECT value FROM tpcc_meta WHERE name = 'journal_seq'")) {}

int64_t JournalSequence::next(Txn& txn) const {
  txn.exec(bump_, {});
  Rows rows;
  txn.exec(read_, {}, &rows);
  if (rows.size() != 1) throw BackendError("tpcc_meta has no journal_seq row");
  return rows.get_int(0, 0);
}

void JournalSequence::ensure_row(Connection& conn) {
  StmtId count = conn.prepare("SELECT COUNT(*) FROM tpcc_meta WHERE name = 'journal_seq'");
  StmtId insert = conn.prepare("INSERT INTO tpcc_meta (name, value) VALUES ('journal_seq', 0)");
  conn.write([&](Txn& txn) {
    Rows rows;
    txn.exec(count, {}, &rows);
    if (rows.get_int(0, 0) == 0) txn.exec(insert, {});
    return Outcome::kCommit;
  });
}

void write_journal(const std::string& path, const JournalHeader& header,
                   const std::vector<JournalEntry>& entries) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write journal " + path);
  file << fmt::format("{} warehouses={} seed={} engine={}\n", kMagic, header.warehouses,
                      header.seed, header.engine);
  for (const JournalEntry& entry : entries) {
    if (const auto* no = std::get_if<NewOrderInput>(&entry.input)) {
      std::string line = fmt::format("N {} {} {} {} {} {}", entry.seq, no->w_id, no->d_id,
                                     no->c_id, no->entry_d, no->ol_cnt);
      for (int line_idx = 0; line_idx < no->ol_cnt; ++line_idx) {
        const NewOrderLine& ol = no->lines[line_idx];
        line += fmt::format(" {}:{}:{}", ol.i_id, ol.supply_w_id, ol.quantity);
      }
      file << line << '\n';
    } else if (const auto* pay = std::get_if<PaymentInput>(&entry.input)) {
      file << fmt::format("P {} {} {} {} {} {} {} {} {}\n", entry.seq, pay->w_id, pay->d_id,
                          pay->c_w_id, pay->c_d_id,
                          pay->by_name ? "-" : std::to_string(pay->c_id),
                          pay->by_name ? pay->c_last : "-", pay->h_amount, pay->h_date);
    } else if (const auto* dl = std::get_if<DeliveryInput>(&entry.input)) {
      // A part of a split Delivery names its districts; a whole one does not.
      file << fmt::format("D {} {} {} {}", entry.seq, dl->w_id, dl->carrier_id, dl->delivery_d);
      if (dl->first_district != 1 || dl->last_district != kDistrictsPerWarehouse) {
        file << fmt::format(" {} {}", dl->first_district, dl->last_district);
      }
      file << '\n';
    }
  }
  // The end line: a journal cut at a line boundary lacks it (or counts more
  // records than it holds), which read_journal() refuses.
  file << fmt::format("{}{}\n", kEndPrefix, entries.size());
  file.flush();
  if (!file) throw std::runtime_error("cannot write journal " + path);
}

std::vector<JournalEntry> read_journal(const std::string& path, JournalHeader* header) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open journal " + path);
  std::string line;
  if (!std::getline(file, line) || line.rfind(kMagic, 0) != 0) {
    throw std::runtime_error(path + ": not a solo TPC-C journal (bad first line)");
  }
  {
    LineParser parser(path, 1, split(line.substr(std::string(kMagic).size())));
    bool have_w = false, have_seed = false;
    for (size_t idx = 0; idx < parser.count(); ++idx) {
      const std::string& field = parser.text(idx);
      size_t eq = field.find('=');
      if (eq == std::string::npos) parser.fail("bad header field '" + field + "'");
      std::string key = field.substr(0, eq), value = field.substr(eq + 1);
      if (key == "warehouses") {
        header->warehouses = static_cast<int>(parser.parse_int(value, 1, 10000));
        have_w = true;
      } else if (key == "seed") {
        header->seed = static_cast<uint64_t>(parser.parse_int(value, 0, INT64_MAX));
        have_seed = true;
      } else if (key == "engine") {
        header->engine = value;
      }
    }
    if (!have_w || !have_seed) parser.fail("header lacks warehouses= or seed=");
  }
  std::vector<JournalEntry> entries;
  int line_no = 1;
  int64_t last_seq = 0;
  bool ended = false;
  while (std::getline(file, line)) {
    ++line_no;
    if (line.empty()) continue;
    LineParser parser(path, line_no, split(line));
    if (ended) parser.fail("a line after the end line");
    if (line.rfind(kEndPrefix, 0) == 0) {
      const int64_t count =
          parser.parse_int(line.substr(std::string(kEndPrefix).size()), 0, INT64_MAX);
      if (count != static_cast<int64_t>(entries.size())) {
        parser.fail(fmt::format("the end line counts {} records, but the journal holds {}", count,
                                entries.size()));
      }
      ended = true;
      continue;
    }
    if (parser.count() < 2) parser.fail("truncated record");
    JournalEntry entry;
    entry.seq = parser.integer(1, 1, INT64_MAX);
    if (entry.seq <= last_seq) parser.fail("sequence numbers must increase");
    // Commit order numbers every journaled transaction, so a gap is a lost record.
    if (!entries.empty() && entry.seq != last_seq + 1) {
      parser.fail(entry.seq == last_seq + 2
                      ? fmt::format("sequence number {} is missing (found {} after {})",
                                    last_seq + 1, entry.seq, last_seq)
                      : fmt::format("sequence numbers {}..{} are missing (found {} after {})",
                                    last_seq + 1, entry.seq - 1, entry.seq, last_seq));
    }
    last_seq = entry.seq;
    const std::string& kind = parser.text(0);
    if (kind == "N") {
      if (parser.count() < 7) parser.fail("truncated New-Order record");
      NewOrderInput in;
      in.w_id = static_cast<int32_t>(parser.integer(2, 1, kMaxId));
      in.d_id = static_cast<int32_t>(parser.integer(3, 1, 10));
      in.c_id = static_cast<int32_t>(parser.integer(4, 1, kMaxId));
      in.entry_d = parser.integer(5, 0, kMaxTime);
      in.ol_cnt = static_cast<int32_t>(parser.integer(6, 1, 15));
      parser.expect_count(7 + static_cast<size_t>(in.ol_cnt));
      for (int line_idx = 0; line_idx < in.ol_cnt; ++line_idx) {
        const std::string& field = parser.text(7 + line_idx);
        size_t first = field.find(':'), second = field.rfind(':');
        if (first == std::string::npos || first == second) parser.fail("bad order line " + field);
        NewOrderLine& ol = in.lines[line_idx];
        ol.i_id = static_cast<int32_t>(parser.parse_int(field.substr(0, first), 1, kMaxId));
        ol.supply_w_id = static_cast<int32_t>(
            parser.parse_int(field.substr(first + 1, second - first - 1), 1, kMaxId));
        ol.quantity = static_cast<int32_t>(parser.parse_int(field.substr(second + 1), 1, 10));
      }
      entry.input = in;
    } else if (kind == "P") {
      parser.expect_count(10);
      PaymentInput in;
      in.w_id = static_cast<int32_t>(parser.integer(2, 1, kMaxId));
      in.d_id = static_cast<int32_t>(parser.integer(3, 1, 10));
      in.c_w_id = static_cast<int32_t>(parser.integer(4, 1, kMaxId));
      in.c_d_id = static_cast<int32_t>(parser.integer(5, 1, 10));
      in.by_name = parser.text(6) == "-";
      if (in.by_name) {
        in.c_last = parser.text(7);
        if (in.c_last == "-") parser.fail("payment has neither c_id nor c_last");
      } else {
        in.c_id = static_cast<int32_t>(parser.integer(6, 1, kMaxId));
      }
      in.h_amount = parser.integer(8, 1, 100000000);
      in.h_date = parser.integer(9, 0, kMaxTime);
      entry.input = in;
    } else if (kind == "D") {
      if (parser.count() != 7) parser.expect_count(5);
      DeliveryInput in;
      in.w_id = static_cast<int32_t>(parser.integer(2, 1, kMaxId));
      in.carrier_id = static_cast<int32_t>(parser.integer(3, 1, 10));
      in.delivery_d = parser.integer(4, 0, kMaxTime);
      if (parser.count() == 7) {
        in.first_district = static_cast<int32_t>(parser.integer(5, 1, kDistrictsPerWarehouse));
        in.last_district =
            static_cast<int32_t>(parser.integer(6, in.first_district, kDistrictsPerWarehouse));
      }
      entry.input = in;
    } else {
      parser.fail("unknown record kind '" + kind + "'");
    }
    entries.push_back(std::move(entry));
  }
  if (!ended) {
    throw std::runtime_error(
        fmt::format("{}: no end line ('{}N') after line {}: the journal is cut short", path,
                    kEndPrefix, line_no));
  }
  return entries;
}

}  // namespace tpcc
