// One-node operations: insert/remove/compaction keep the heap accounting; a
// split leaves each half room for one more key of the class's longest. Every
// node class; a node lives in exactly node_bytes(class) of heap memory, so
// that the ASan build catches an access past its key heap.
#include <catch2/catch.hpp>
#include <algorithm>
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
    live += heap_len(node.key_len_[idx]);
    REQUIRE(node.key_len_[idx] <= node_max_key_bytes(&node));
    std::string_view key = node.key(idx);
    REQUIRE(node.prefix(idx) == key_prefix(key.data(), key.size()));
    if (idx > 0) REQUIRE(node.key(idx - 1) < key);
  }
  REQUIRE(live == node.live_heap());
  REQUIRE(node.heap_used_ <= node_heap_bytes(&node));
}

// Not inlined: the compiler would see a Node in fewer bytes than its type's
// and warn, while the point is that a node never reaches past its class's.
[[gnu::noinline]] char* allocate_node_memory(uint32_t bytes) {
  return static_cast<char*>(::operator new(bytes, std::align_val_t{16}));
}

// Memory for one node of the class, exactly as large as the pool would give.
struct NodeMemory {
  explicit NodeMemory(int node_class) : bytes(allocate_node_memory(node_bytes(node_class))) {
    node_init(get(), true, node_class, 1);
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
  node_init(node, true, node->class_, 1);
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
  const int node_class = GENERATE(range(0, kNodeClasses));
  const int max_key = std::min(24, kClassMaxKeyBytes[node_class]);
  std::mt19937_64 rng(5);
  NodeMemory memory(node_class);
  Node& node = *memory.get();
  for (int round = 0; round < 200; ++round) {
    fill(&node, rng, 1 + round % max_key);
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

// The searches step from kNodeCapacity down by halves: every count from
// empty to full, every key present and every gap (before the first, between
// two, after the last), in short keys (prefixes decide) and long keys with
// one shared 8-byte prefix (the tails decide).
TEST_CASE("searches find every position at every count, full nodes included") {
  const bool long_keys = GENERATE(false, true);
  NodeMemory memory(long_keys ? 4 : 0);  // class 4: 32 keys of 11 bytes fit
  Node* node = memory.get();
  // Key `rank`, even ranks stored: long keys share their first 9 bytes.
  auto key_of = [&](int rank) {
    std::string key = long_keys ? std::string(9, 'k') : std::string();
    key.push_back(static_cast<char>('a' + rank / 26));
    key.push_back(static_cast<char>('a' + rank % 26));
    return key;
  };
  for (int count = 0; count <= kNodeCapacity; ++count) {
    node_init(node, true, node->class_, 1);
    for (int idx = 0; idx < count; ++idx) {
      std::string key = key_of(2 * idx + 1);
      node_insert_at(node, idx, make_key(key), nullptr);
    }
    REQUIRE(node->count_ == count);
    for (int rank = 0; rank <= 2 * count + 1; ++rank) {
      std::string key = key_of(rank);
      KeyRef ref = make_key(key);
      const bool stored = rank % 2 == 1 && rank < 2 * count + 1;
      const int expected = rank / 2;  // stored keys below rank
      bool found;
      REQUIRE(node_lower_bound(node, ref, &found) == expected);
      REQUIRE(found == stored);
      REQUIRE(node_upper_bound(node, ref) == expected + (stored ? 1 : 0));
      REQUIRE(node_route(node, ref) == std::max(0, expected + (stored ? 1 : 0) - 1));
    }
  }
}

TEST_CASE("removes and compaction keep the heap accounting") {
  const int node_class = GENERATE(range(0, kNodeClasses));
  std::mt19937_64 rng(6);
  NodeMemory memory(node_class);
  Node& node = *memory.get();
  fill(&node, rng, std::min(40, kClassMaxKeyBytes[node_class]));
  REQUIRE(node.count_ > 3);
  std::vector<std::string> keys;
  for (int idx = 0; idx < node.count_; ++idx) keys.emplace_back(node.key(idx));
  while (node.count_ > 3) {
    int victim = static_cast<int>(rng() % node.count_);
    node_remove_at(&node, victim);
    keys.erase(keys.begin() + victim);
    check_node(node);
  }
  // Only keys longer than 8 bytes take heap (and leave dead bytes).
  REQUIRE((node.heap_dead_ > 0) == (node_class > 0));
  node_compact(&node);
  REQUIRE(node.heap_dead_ == 0);
  check_node(node);
  for (int idx = 0; idx < node.count_; ++idx) REQUIRE(node.key(idx) == keys[idx]);
  // A copy of the same class, and one of each larger class.
  for (int copy_class = node_class; copy_class < kNodeClasses; ++copy_class) {
    NodeMemory copy_memory(copy_class);
    Node& copy = *copy_memory.get();
    node_copy(&copy, &node, 9, copy_class);
    REQUIRE(copy.gen_ == 9);
    REQUIRE(copy.class_ == copy_class);
    check_node(copy);
    REQUIRE(copy.count_ == node.count_);
    for (int idx = 0; idx < copy.count_; ++idx) REQUIRE(copy.key(idx) == keys[idx]);
  }
}

TEST_CASE("each half of a split has room for one more key of the class's longest") {
  const int node_class = GENERATE(range(0, kNodeClasses));
  const int max_key = kClassMaxKeyBytes[node_class];
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    NodeMemory memory(node_class);
    Node& node = *memory.get();
    size_t max_size = round % 3 == 0 ? max_key : 1 + rng() % max_key;
    fill(&node, rng, max_size);
    REQUIRE(node.count_ >= 2);
    int split = node_split_point(&node);
    REQUIRE(split >= 1);
    REQUIRE(split < node.count_);
    NodeMemory right_memory(node_class);
    Node& right = *right_memory.get();
    node_append(&right, &node, split, node.count_);
    node_truncate(&node, split);
    check_node(node);
    check_node(right);
    REQUIRE(node_fits(&node, max_key));
    REQUIRE(node_fits(&right, max_key));
  }
}

TEST_CASE("node classes: 8-byte keys need no heap; each class takes four of its longest keys") {
  REQUIRE(node_bytes(0) == 560);  // no heap, no key offsets (node.h)
  REQUIRE(node_bytes(1) == 624 + 64);
  REQUIRE(node_bytes(kNodeClasses - 1) == sizeof(Node));
  NodeMemory memory(0);
  Node* node = memory.get();
  for (int idx = 0; idx < kNodeCapacity; ++idx) {
    std::string key(8, static_cast<char>(idx));
    REQUIRE(node_fits(node, 8));
    node_insert_at(node, idx, make_key(key), nullptr);
  }
  REQUIRE(!node_fits(node, 1));  // full by count
  REQUIRE(node->heap_used_ == 0);
  check_node(*node);
  for (int node_class = 0; node_class < kNodeClasses; ++node_class) {
    const int max_key = kClassMaxKeyBytes[node_class];
    REQUIRE(node_class_for_key(static_cast<uint32_t>(max_key)) == node_class);
    if (node_class > 0) {
      REQUIRE(node_class_for_key(static_cast<uint32_t>(kClassMaxKeyBytes[node_class - 1] + 1)) ==
              node_class);
    }
    NodeMemory long_memory(node_class);
    Node* long_keys = long_memory.get();
    REQUIRE(!node_fits(long_keys, static_cast<uint32_t>(max_key + 1)));  // too long for the class
    int count = 0;
    while (node_fits(long_keys, static_cast<uint32_t>(max_key))) {
      std::string key(max_key, static_cast<char>(count));
      node_insert_at(long_keys, count++, make_key(key), nullptr);
    }
    INFO("class " << node_class);
    REQUIRE(count == (node_class == 0 ? kNodeCapacity : 4));
    check_node(*long_keys);
    // The class that takes it all and one more such key: the next one up
    // (for the largest: none, a split).
    int wanted = node_class_to_take(long_keys, static_cast<uint32_t>(max_key));
    if (node_class == 0) {
      REQUIRE(wanted == 0);  // only full by count
    } else {
      REQUIRE(wanted > node_class);
      if (wanted < kNodeClasses) REQUIRE(kClassHeapBytes[wanted] >= 5 * max_key);
    }
  }
}
