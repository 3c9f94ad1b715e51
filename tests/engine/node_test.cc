// One-node operations: insert/remove/compaction keep the heap accounting; a
// split leaves each half room for one more maximal key.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "node.h"

using namespace solo::internal;

namespace {

std::string random_key(std::mt19937_64& rng, size_t max_size) {
  std::string key(1 + rng() % max_size, '\0');
  for (char& byte : key) byte = static_cast<char>(rng() % 4);  // many shared prefixes
  return key;
}

void check_node(const Node& node) {
  int live = 0;
  for (int idx = 0; idx < node.count_; ++idx) {
    live += node.key_len_[idx];
    std::string_view key = node.key(idx);
    REQUIRE(node.prefix_[idx] == key_prefix(key.data(), key.size()));
    if (idx > 0) REQUIRE(node.key(idx - 1) < key);
  }
  REQUIRE(live == node.live_heap());
  REQUIRE(node.heap_used_ <= kNodeHeapBytes);
}

// Inserts random keys in order until the node is full by count or bytes (or
// the short keys run out).
void fill(Node* node, std::mt19937_64& rng, size_t max_size) {
  node_init(node, true, 1);
  for (int attempt = 0; attempt < 5000; ++attempt) {
    std::string key = random_key(rng, max_size);
    KeyRef ref = make_key(key);
    bool found;
    int idx = node_lower_bound(node, ref, &found);
    if (found) continue;
    if (!node_fits(node, ref.size)) return;
    node_insert_at(node, idx, ref, nullptr);
  }
}

}  // namespace

TEST_CASE("comparisons agree with memcmp order, also on prefix ties") {
  std::mt19937_64 rng(5);
  Node node;
  for (int round = 0; round < 200; ++round) {
    fill(&node, rng, 1 + round % 24);
    check_node(node);
    for (int probe = 0; probe < 50; ++probe) {
      std::string key = random_key(rng, 1 + round % 24);
      KeyRef ref = make_key(key);
      bool found;
      int idx = node_lower_bound(&node, ref, &found);
      if (idx > 0) REQUIRE(node.key(idx - 1) < key);
      if (idx < node.count_) REQUIRE(node.key(idx) >= key);
      REQUIRE(found == (idx < node.count_ && node.key(idx) == key));
      REQUIRE(node_upper_bound(&node, ref) == idx + (found ? 1 : 0));
    }
  }
}

TEST_CASE("removes and compaction keep the heap accounting") {
  std::mt19937_64 rng(6);
  Node node;
  fill(&node, rng, 40);
  std::vector<std::string> keys;
  for (int idx = 0; idx < node.count_; ++idx) keys.emplace_back(node.key(idx));
  while (node.count_ > 3) {
    int victim = static_cast<int>(rng() % node.count_);
    node_remove_at(&node, victim);
    keys.erase(keys.begin() + victim);
    check_node(node);
  }
  REQUIRE(node.heap_dead_ > 0);
  node_compact(&node);
  REQUIRE(node.heap_dead_ == 0);
  check_node(node);
  for (int idx = 0; idx < node.count_; ++idx) REQUIRE(node.key(idx) == keys[idx]);
  Node copy;
  node_copy(&copy, &node, 9);
  REQUIRE(copy.gen_ == 9);
  check_node(copy);
}

TEST_CASE("each half of a split has room for one more maximal key") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    Node node;
    size_t max_size = round % 3 == 0 ? kNodeMaxKeyBytes : 1 + rng() % kNodeMaxKeyBytes;
    fill(&node, rng, max_size);
    REQUIRE(node.count_ >= 2);
    int split = node_split_point(&node);
    REQUIRE(split >= 1);
    REQUIRE(split < node.count_);
    Node right;
    node_init(&right, true, 1);
    node_append(&right, &node, split, node.count_);
    node_truncate(&node, split);
    check_node(node);
    check_node(right);
    REQUIRE(node_fits(&node, kNodeMaxKeyBytes));
    REQUIRE(node_fits(&right, kNodeMaxKeyBytes));
  }
}
