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

void DeckTally::add(uint64_t card) {
  const uint64_t deck = card / kDeckSize;
  if (counted_in_deck_ > 0 && deck != deck_) {
    assert(deck > deck_);
    if (counted_in_deck_ < kDeckSize) ++closed_partial_;
    counted_in_deck_ = 0;
  }
  deck_ = deck;
  ++counted_in_deck_;
}

uint64_t DeckTally::partial_decks() const {
  const bool last_partial = counted_in_deck_ > 0 && counted_in_deck_ < kDeckSize;
  return closed_partial_ + (last_partial ? 1 : 0);
}

}  // namespace tpcc
