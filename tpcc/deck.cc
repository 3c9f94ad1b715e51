#include "tpcc/deck.h"

#include <cassert>
#include <utility>

namespace tpcc {

TxnType TxnDeck::deal(Rng& rng) {
  const auto slot = static_cast<size_t>(dealt_ % kDeckSize);
  if (slot == 0) {
    size_t filled = 0;
    for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
      for (int copy = 0; copy < kDeckCards[type_idx]; ++copy) {
        cards_[filled++] = static_cast<TxnType>(type_idx);
      }
    }
    assert(filled == kDeckSize);
    for (size_t last = kDeckSize - 1; last > 0; --last) {
      std::swap(cards_[last],
                cards_[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(last)))]);
    }
  }
  ++dealt_;
  return cards_[slot];
}

}  // namespace tpcc
