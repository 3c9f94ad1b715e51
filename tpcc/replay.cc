#include "tpcc/replay.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "tpcc/statements.h"

namespace tpcc {

void replay_journal(Connection& conn, const std::vector<JournalEntry>& entries, bool progress) {
  PreparedStatements stmts(conn);
  auto started = std::chrono::steady_clock::now();
  auto last_print = started;
  size_t done = 0;
  for (const JournalEntry& entry : entries) {
    TxnResult result;
    try {
      result = std::visit(
          [&](const auto& in) {
            using Input = std::decay_t<decltype(in)>;
            return conn.write([&](Txn& txn) {
              if constexpr (std::is_same_v<Input, NewOrderInput>) {
                return run_new_order(txn, stmts, in, nullptr);
              } else if constexpr (std::is_same_v<Input, PaymentInput>) {
                return run_payment(txn, stmts, in, nullptr);
              } else {
                return run_delivery(txn, stmts, in, nullptr);
              }
            });
          },
          entry.input);
    } catch (const BackendError& error) {
      throw BackendError(fmt::format("replay of journal entry {} failed: {}", entry.seq,
                                     error.what()));
    }
    if (result.outcome != Outcome::kCommit) {
      throw BackendError(fmt::format(
          "journal entry {} committed in the journal but rolled back on replay", entry.seq));
    }
    ++done;
    auto now = std::chrono::steady_clock::now();
    if (progress && now - last_print >= std::chrono::seconds(1)) {
      last_print = now;
      fmt::print(stderr, "{}replayed {}/{} ({:.0f}%)", isatty(STDERR_FILENO) ? "\r" : "",
                 done, entries.size(), 100.0 * done / entries.size());
      if (!isatty(STDERR_FILENO)) fmt::print(stderr, "\n");
    }
  }
  if (progress) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fmt::print(stderr, "{}replayed {} transactions in {:.1f} s\n",
               isatty(STDERR_FILENO) ? "\r" : "", done, seconds);
  }
}

}  // namespace tpcc
