// BulkBuilder (engine/src/btree_bulk.cc): trees built from sorted entries
// pass btree_check (T1-T6) at every fill, with short and maximal keys and
// at heights 1 to 4+; they find every key and take ordinary inserts and
// removes afterwards; an entry out of order or a duplicate is refused. Each
// node is of the smallest class that takes its keys (node.h).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tree.h"

using namespace solo::internal;

namespace {

// Key `idx` of a sorted sequence: 8 big-endian bytes, then `pad` bytes.
std::string key_of(uint64_t idx, size_t pad) {
  std::string key(8, '\0');
  for (int byte = 0; byte < 8; ++byte)
    key[7 - byte] = static_cast<char>((idx >> (8 * byte)) & 0xFF);
  key.append(pad, static_cast<char>('a' + idx % 26));
  return key;
}

void* value_of(uint64_t idx) {
  return reinterpret_cast<void*>(uintptr_t{idx + 1});
}

TreeState build(TreeWriter* writer, uint64_t count, size_t pad, int fill) {
  BulkBuilder builder(writer, /*has_records=*/false, fill);
  for (uint64_t idx = 0; idx < count; ++idx) {
    std::string key = key_of(idx * 2, pad);  // even: odd keys can be inserted later
    REQUIRE(builder.append(make_key(key), value_of(idx * 2)));
  }
  return builder.finish();
}

}  // namespace

TEST_CASE("bulk-built trees are sound at every fill, key size and height") {
  ObjectPool pool(true);
  TreeWriter writer(&pool);
  struct Shape {
    uint64_t count;
    size_t pad;
    int fill;
  };
  for (Shape shape :
       {Shape{0, 0, 32}, Shape{1, 0, 32}, Shape{32, 0, 32}, Shape{33, 0, 32}, Shape{1025, 0, 32},
        Shape{40000, 0, 32}, Shape{40000, 4, 24}, Shape{5000, 0, 2}, Shape{3000, 192, 32},
        Shape{3000, 192, 24}, Shape{777, 100, 3}}) {
    INFO("count " << shape.count << " pad " << shape.pad << " fill " << shape.fill);
    TreeState tree = build(&writer, shape.count, shape.pad, shape.fill);
    REQUIRE(btree_check(tree, writer.gen()) == "");
    REQUIRE(tree.count == shape.count);
    REQUIRE(tree.bytes == shape.count * (8 + shape.pad));
    if (shape.count == 40000 && shape.fill == 32) REQUIRE(tree.height == 4);  // 32^3 < 40000
    if (shape.count == 5000) REQUIRE(tree.height >= 12);                      // fanout 2
    for (uint64_t idx = 0; idx < shape.count; idx += 7) {
      std::string key = key_of(idx * 2, shape.pad);
      void* value = nullptr;
      REQUIRE(btree_get(tree, make_key(key), &value, writer.gen()));
      REQUIRE(value == value_of(idx * 2));
      std::string absent = key_of(idx * 2 + 1, shape.pad);
      REQUIRE(!btree_get(tree, make_key(absent), &value, writer.gen()));
    }
    // Ordinary changes afterwards, in the next generation (copy-on-write).
    writer.set_gen(writer.gen() + 1);
    for (uint64_t idx = 0; idx < shape.count; idx += 5) {
      std::string key = key_of(idx * 2 + 1, shape.pad);
      void* old = nullptr;
      REQUIRE(
          btree_put(&tree, &writer, make_key(key), value_of(idx * 2 + 1), PutMode::kInsert, &old));
      std::string gone = key_of(idx * 2, shape.pad);
      REQUIRE(btree_remove(&tree, &writer, make_key(gone), &old));
      REQUIRE(old == value_of(idx * 2));
    }
    REQUIRE(btree_check(tree, writer.gen()) == "");
    btree_drop(&tree, &writer);
    writer.set_gen(writer.gen() + 1);
  }
}

TEST_CASE("a bulk build refuses keys out of order and duplicates") {
  ObjectPool pool(true);
  TreeWriter writer(&pool);
  const int64_t nodes_before = writer.live_nodes();
  {
    BulkBuilder builder(&writer, /*has_records=*/false, 32);
    for (uint64_t idx = 0; idx < 100; ++idx) {
      REQUIRE(builder.append(make_key(key_of(idx, 0)), value_of(idx)));
    }
    REQUIRE(!builder.append(make_key(key_of(99, 0)), value_of(0)));  // duplicate of the last
    REQUIRE(!builder.append(make_key(key_of(50, 0)), value_of(0)));  // below it
    // A key that shares the 8-byte prefix and is shorter sorts first.
    REQUIRE(builder.append(make_key(key_of(100, 3)), value_of(100)));
    REQUIRE(!builder.append(make_key(key_of(100, 2)), value_of(0)));
    REQUIRE(builder.count() == 101);
    // Destroyed without finish(): its nodes are discarded.
  }
  REQUIRE(writer.live_nodes() == nodes_before);
  BulkBuilder builder(&writer, /*has_records=*/false, 32);
  REQUIRE(builder.append(make_key(key_of(5, 0)), value_of(5)));
  TreeState tree = builder.finish();
  REQUIRE(tree.count == 1);
  REQUIRE(tree.height == 1);
  REQUIRE(btree_check(tree, writer.gen()) == "");
  // The builder starts over empty after finish().
  REQUIRE(builder.append(make_key(key_of(1, 0)), value_of(1)));
  TreeState second = builder.finish();
  REQUIRE(second.count == 1);
  btree_drop(&tree, &writer);
  btree_drop(&second, &writer);
}

namespace {

// Nodes per level of a tree, root first; the largest class among them.
void count_nodes(const Node* node, uint32_t depth, std::vector<uint64_t>* per_level,
                 int* max_class = nullptr) {
  if (per_level->size() <= depth) per_level->resize(depth + 1);
  (*per_level)[depth]++;
  if (max_class != nullptr) *max_class = std::max<int>(*max_class, node->class_);
  if (node->is_leaf_) return;
  for (int idx = 0; idx < node->count_; ++idx) {
    count_nodes(node->child(idx), depth + 1, per_level, max_class);
  }
}

}  // namespace

TEST_CASE("ascending inserts into the middle of a tree leave full leaves (btree_split.cc)") {
  // TPC-C's order lines: ten districts loaded in key order, then each gets
  // new keys at the end of its own range, in turns. Splitting in the middle
  // there left one half-full leaf behind per split.
  // 8-byte keys live in the nodes' heads (class 0, 560 bytes); 16-byte ones
  // need a heap: their nodes grow to the class that takes 32 of them.
  const size_t pad = GENERATE(0u, 8u);
  ObjectPool pool(true);
  TreeWriter writer(&pool);
  constexpr uint64_t kDistricts = 10;
  constexpr uint64_t kLoaded = 3000;  // per district
  constexpr uint64_t kAdded = 6000;   // per district
  auto key_for = [pad](uint64_t district, uint64_t seq) {
    return key_of(district << 32 | seq, pad);
  };
  BulkBuilder builder(&writer, /*has_records=*/false, kNodeCapacity);
  for (uint64_t district = 0; district < kDistricts; ++district) {
    for (uint64_t seq = 0; seq < kLoaded; ++seq) {
      REQUIRE(builder.append(make_key(key_for(district, seq)), value_of(seq)));
    }
  }
  TreeState tree = builder.finish();
  for (uint64_t seq = kLoaded; seq < kLoaded + kAdded; ++seq) {
    for (uint64_t district = 0; district < kDistricts; ++district) {
      void* old = nullptr;
      REQUIRE(btree_put(&tree, &writer, make_key(key_for(district, seq)), value_of(seq),
                        PutMode::kInsert, &old));
    }
  }
  REQUIRE(btree_check(tree, writer.gen()) == "");
  REQUIRE(tree.count == kDistricts * (kLoaded + kAdded));
  std::vector<uint64_t> per_level;
  int max_class = 0;
  count_nodes(tree.root, 0, &per_level, &max_class);
  const double per_leaf = static_cast<double>(tree.count) / static_cast<double>(per_level.back());
  INFO("entries per leaf " << per_leaf << " (capacity " << kNodeCapacity << ")");
  // 32 fit. Middle splits gave ~17 per leaf.
  CHECK(per_leaf > 0.9 * kNodeCapacity);
  // 32 keys of 16 bytes: 512 heap bytes.
  REQUIRE(max_class == (pad == 0 ? 0 : node_class_for_key(16) + 3));
  // The same keys in random order still split in the middle (~69% full).
  TreeState shuffled{};
  std::vector<std::string> keys;
  for (uint64_t district = 0; district < kDistricts; ++district) {
    for (uint64_t seq = 0; seq < kLoaded; ++seq) keys.push_back(key_for(district, seq));
  }
  uint64_t state = 12345;
  for (size_t idx = keys.size() - 1; idx > 0; --idx) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(keys[idx], keys[(state >> 33) % (idx + 1)]);
  }
  for (const std::string& key : keys) {
    void* old = nullptr;
    REQUIRE(btree_put(&shuffled, &writer, make_key(key), value_of(1), PutMode::kInsert, &old));
  }
  REQUIRE(btree_check(shuffled, writer.gen()) == "");
  std::vector<uint64_t> shuffled_levels;
  count_nodes(shuffled.root, 0, &shuffled_levels);
  const double shuffled_per_leaf =
      static_cast<double>(shuffled.count) / static_cast<double>(shuffled_levels.back());
  INFO("random order: entries per leaf " << shuffled_per_leaf);
  CHECK(shuffled_per_leaf > 0.6 * kNodeCapacity);
  CHECK(shuffled_per_leaf < 0.8 * kNodeCapacity);
}
