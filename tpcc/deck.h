// The transaction mix as a deck of cards (TPC-C clause 5.2.4.2): each
// terminal deals its transaction types from its own deck of kDeckSize cards,
// kDeckCards of each type (45/43/4/4/4, the shares of clause 5.2.3),
// shuffled with the terminal's Rng and shuffled again when used up. Every
// full deck deals the mix exactly, so the measured shares differ from it
// only by the decks the measured interval cuts (DeckTally; the mix audit).
#pragma once

#include <array>
#include <cstdint>

#include "tpcc/random.h"
#include "tpcc/transactions.h"

namespace tpcc {

inline constexpr int kDeckSize = 100;
// Cards of each type in one deck, indexed by TxnType.
inline constexpr std::array<int, kTxnTypes> kDeckCards = {45, 43, 4, 4, 4};

class TxnDeck {
 public:
  // Deals the next card; the first card of every deck (the first call
  // included) shuffles a fresh deck with `rng` (Fisher-Yates over
  // Rng::uniform, so a seed gives the same cards with any standard
  // library). Used by the terminal's own thread only.
  TxnType deal(Rng& rng);
  // Cards dealt so far: card k (0-based) came from deck k / kDeckSize.
  uint64_t dealt() const { return dealt_; }

 private:
  std::array<TxnType, kDeckSize> cards_{};
  uint64_t dealt_ = 0;
};

// Counts the decks that the counted cards (a terminal's measured
// transactions) only partly cover. Any r cards of one deck hold at least
// r - (kDeckSize - kDeckCards[t]) of type t, so each such deck can leave the
// measured count of type t at most kDeckCards[t] / kDeckSize x (kDeckSize -
// kDeckCards[t]) below its share of the counted cards; full decks leave it
// exact.
class DeckTally {
 public:
  // Counts card number `card` (TxnDeck::dealt() before it was dealt).
  // Precondition: cards are counted in increasing order.
  void add(uint64_t card);
  // Decks of which some, but not all, cards were counted.
  uint64_t partial_decks() const;

 private:
  uint64_t deck_ = 0;             // the deck of the last counted card
  uint64_t counted_in_deck_ = 0;  // cards counted from it (0: none counted yet)
  uint64_t closed_partial_ = 0;   // earlier decks only partly counted
};

}  // namespace tpcc
