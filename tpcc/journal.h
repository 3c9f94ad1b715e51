// The journal: every committed write transaction of a run with its full
// input, in commit order, so that another engine can replay the same work.
//
// Commit order is taken from the database itself: while journaling, each write
// transaction first increments tpcc_meta's `journal_seq` row and reads it back
// (Stmt-independent SQL, see journal.cc). Every journaled transaction thus
// writes one common row, so any engine serializes them, and the sequence
// number is their serialization order. This costs concurrency, so it is done
// only for `run --journal` and `crosscheck`, never in a measured comparison.
//
// File format (text, one record per line, fields separated by one space):
//   # solo-tpcc-journal 1 warehouses=<W> seed=<seed> engine=<name>
//   N <seq> <w> <d> <c> <entry_d> <ol_cnt> (<i_id>:<supply_w>:<qty>)*ol_cnt
//   P <seq> <w> <d> <c_w> <c_d> <c_id|-> <c_last|-> <h_amount cents> <h_date>
//   D <seq> <w> <carrier> <delivery_d> [<first_district> <last_district>]
//   # end records=<number of records>
// (a D record without districts delivers all ten: one database transaction
// of a split Delivery names the districts it delivers).
// Sequence numbers are consecutive (a gap is a lost record), and the end line,
// always the last, counts the records (a journal cut short lacks it).
// Timestamps are microseconds since the epoch. Rolled-back New-Orders leave no
// trace and are not journaled.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "tpcc/backend.h"
#include "tpcc/transactions.h"

namespace tpcc {

struct JournalEntry {
  int64_t seq = 0;
  std::variant<NewOrderInput, PaymentInput, DeliveryInput> input;
};

struct JournalHeader {
  int warehouses = 0;
  uint64_t seed = 0;
  std::string engine;
};

// Collects entries from many terminals; thread-safe.
class Journal {
 public:
  void add(JournalEntry entry);
  // The entries sorted by seq.
  std::vector<JournalEntry> sorted() const;
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::vector<JournalEntry> entries_;
};

// The statements a journaled write transaction runs first.
class JournalSequence {
 public:
  // Prepares the statements on `conn`. Throws BackendError.
  explicit JournalSequence(Connection& conn);
  // Inside a write body: takes the next sequence number.
  int64_t next(Txn& txn) const;
  // Inserts the `journal_seq` row (0) if it is missing, in its own write
  // transaction. Call once before the terminals start.
  static void ensure_row(Connection& conn);

 private:
  StmtId bump_ = 0;
  StmtId read_ = 0;
};

// Writes header and entries (sorted by seq) to `path`. Throws
// std::runtime_error if the file cannot be written.
void write_journal(const std::string& path, const JournalHeader& header,
                   const std::vector<JournalEntry>& entries);
// Reads a journal file. Throws std::runtime_error naming the file and line of
// the first malformed record; a file is never half-read silently: a gap in
// the sequence numbers (a lost record) and a missing, wrong or misplaced end
// line (a journal cut short) are refused too.
std::vector<JournalEntry> read_journal(const std::string& path, JournalHeader* header);

}  // namespace tpcc
