#include "tpcc/deck.h"

#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

using tpcc::DeckTally;
using tpcc::kDeckCards;
using tpcc::kDeckSize;
using tpcc::kTxnTypes;
using tpcc::Rng;
using tpcc::TxnDeck;
using tpcc::TxnType;

namespace {

// Deals `decks` whole decks from a fresh deck and Rng seeded with `seed`.
std::vector<TxnType> deal(uint64_t seed, int decks) {
  Rng rng(seed);
  TxnDeck deck;
  std::vector<TxnType> cards;
  for (int card_idx = 0; card_idx < decks * kDeckSize; ++card_idx) cards.push_back(deck.deal(rng));
  CHECK(deck.dealt() == cards.size());
  return cards;
}

}  // namespace

TEST_CASE("every deck deals the mix exactly: 45/43/4/4/4 of 100") {
  CHECK(kDeckCards == std::array<int, kTxnTypes>{45, 43, 4, 4, 4});
  const std::vector<TxnType> cards = deal(7, 50);
  for (int deck_idx = 0; deck_idx < 50; ++deck_idx) {
    std::array<int, kTxnTypes> counts{};
    for (int card_idx = 0; card_idx < kDeckSize; ++card_idx) {
      ++counts[static_cast<int>(cards[deck_idx * kDeckSize + card_idx])];
    }
    INFO("deck " << deck_idx);
    CHECK(counts == kDeckCards);
  }
}

TEST_CASE("decks are shuffled, each anew, and the same seed deals the same cards") {
  const std::vector<TxnType> cards = deal(11, 3);
  CHECK(cards == deal(11, 3));
  CHECK(cards != deal(12, 3));
  const std::vector<TxnType> first(cards.begin(), cards.begin() + kDeckSize);
  const std::vector<TxnType> second(cards.begin() + kDeckSize, cards.begin() + 2 * kDeckSize);
  CHECK(first != second);
  // Not dealt in type order: some card is followed by one of a smaller type.
  bool out_of_order = false;
  for (size_t card_idx = 1; card_idx < first.size(); ++card_idx) {
    out_of_order = out_of_order || first[card_idx] < first[card_idx - 1];
  }
  CHECK(out_of_order);
}

TEST_CASE("DeckTally counts the decks whose cards were only partly counted") {
  const auto tally_of = [](uint64_t first, uint64_t end, uint64_t skipped = UINT64_MAX) {
    DeckTally tally;
    for (uint64_t card = first; card < end; ++card) {
      if (card != skipped) tally.add(card);
    }
    return tally.partial_decks();
  };
  CHECK(tally_of(0, 0) == 0);       // nothing counted
  CHECK(tally_of(0, 200) == 0);     // two whole decks
  CHECK(tally_of(0, 257) == 1);     // and the start of a third
  CHECK(tally_of(50, 250) == 2);    // a warm-up cut deck 0, the end deck 2
  CHECK(tally_of(10, 20) == 1);     // the middle of one deck
  CHECK(tally_of(0, 100, 5) == 1);  // a card missing from a deck
}
