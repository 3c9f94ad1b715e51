// One-node operations: insert/remove/compaction keep the heap accounting; a
// split leaves each half room for one more maximal key. Both node classes;
// a small node lives in exactly node_bytes(true) of heap memory, so that the
// ASan build catches an access past its key heap.
#include <catch2/catch.hpp>
#include <memory>
#include <new>
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
  REQUIRE(node.heap_used_ <= node_heap_bytes(&node));
}

// Not inlined: the compiler would see a Node in 912 bytes and warn, while the
// point is that a small node never reaches past them.
[[gnu::noinline]] char* allocate_node_memory(uint32_t bytes) {
  return static_cast<char*>(::operator new(bytes, std::align_val_t{16}));
}

// Memory for one node of the class, exactly as large as the pool would give.
struct NodeMemory {
  explicit NodeMemory(bool small) : bytes(allocate_node_memory(node_bytes(small))) {
    node_init(get(), true, small, 1);
  }
  ~NodeMemory() { ::operator delete(bytes, std::align_val_t{16}); }
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;
  Node* get() const { return reinterpret_cast<Node*>(bytes); }
  char* bytes;
};

// Inserts random keys in order until the node is full by count or bytes (or
// the short keys run out).
void fill(Node* node, std::mt19937_64& rng, size_t max_size) {
  node_init(node, true, node->small_ != 0, 1);
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
  bool small = GENERATE(false, true);
  std::mt19937_64 rng(5);
  NodeMemory memory(small);
  Node& node = *memory.get();
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
  bool small = GENERATE(false, true);
  std::mt19937_64 rng(6);
  NodeMemory memory(small);
  Node& node = *memory.get();
  fill(&node, rng, small ? kSmallNodeMaxKeyBytes : 40);
  REQUIRE(node.count_ > 3);
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
  NodeMemory copy_memory(small);
  Node& copy = *copy_memory.get();
  node_copy(&copy, &node, 9);
  REQUIRE(copy.gen_ == 9);
  REQUIRE(copy.small_ == node.small_);
  check_node(copy);
}

TEST_CASE("each half of a split has room for one more maximal key") {
  bool small = GENERATE(false, true);
  const int max_key = small ? kSmallNodeMaxKeyBytes : kNodeMaxKeyBytes;
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    NodeMemory memory(small);
    Node& node = *memory.get();
    size_t max_size = round % 3 == 0 ? max_key : 1 + rng() % max_key;
    fill(&node, rng, max_size);
    REQUIRE(node.count_ >= 2);
    int split = node_split_point(&node);
    REQUIRE(split >= 1);
    REQUIRE(split < node.count_);
    NodeMemory right_memory(small);
    Node& right = *right_memory.get();
    node_append(&right, &node, split, node.count_);
    node_truncate(&node, split);
    check_node(node);
    check_node(right);
    REQUIRE(node_fits(&node, max_key));
    REQUIRE(node_fits(&right, max_key));
  }
}

TEST_CASE("a small node holds a full node's count of 8-byte keys in its memory") {
  std::mt19937_64 rng(8);
  NodeMemory memory(/*small=*/true);
  Node* node = memory.get();
  REQUIRE(node_bytes(true) < node_bytes(false));
  for (int idx = 0; idx < kNodeCapacity; ++idx) {
    std::string key(8, static_cast<char>(idx));
    REQUIRE(node_fits(node, 8));
    node_insert_at(node, idx, make_key(key), nullptr);
  }
  REQUIRE(!node_fits(node, 1));  // full by count
  check_node(*node);
  // Longer keys make a small node full by bytes first.
  NodeMemory long_memory(/*small=*/true);
  Node* long_keys = long_memory.get();
  int count = 0;
  while (node_fits(long_keys, kSmallNodeMaxKeyBytes)) {
    std::string key(kSmallNodeMaxKeyBytes, static_cast<char>(count));
    node_insert_at(long_keys, count++, make_key(key), nullptr);
  }
  REQUIRE(count == kSmallNodeHeapBytes / kSmallNodeMaxKeyBytes);
  check_node(*long_keys);
}
