// Replaying a journal serially on another engine.
#pragma once

#include <cstdint>
#include <vector>

#include "tpcc/backend.h"
#include "tpcc/journal.h"

namespace tpcc {

// Runs `entries` in order, one write transaction each, on `conn` (which must
// hold a database loaded from the journal's seed and W). Throws BackendError
// naming the entry's seq when one fails, or when a New-Order that committed
// in the journal rolls back here (the states have diverged).
void replay_journal(Connection& conn, const std::vector<JournalEntry>& entries, bool progress);

}  // namespace tpcc
