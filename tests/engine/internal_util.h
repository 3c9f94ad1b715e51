// Test access to engine internals: walking the nodes of a published state.
#pragma once

#include <set>

#include "db_impl.h"
#include "solo/database.h"

namespace solo::test {

struct Reachable {
  std::set<const void*> nodes;
  std::set<const void*> records;
  std::set<const void*> new_nodes;    // nodes made after `since_gen`
  std::set<const void*> new_records;  // records made after `since_gen`
};

inline void walk_node(const internal::Node* node, bool has_records, uint64_t since_gen,
                      Reachable* out) {
  out->nodes.insert(node);
  if (node->gen_ > since_gen) out->new_nodes.insert(node);
  for (int idx = 0; idx < node->count_; ++idx) {
    if (!node->is_leaf_) {
      walk_node(node->child(idx), has_records, since_gen, out);
    } else if (has_records) {
      auto* record = static_cast<const internal::Record*>(node->ptr_[idx]);
      out->records.insert(record);
      if (record->gen() > since_gen) out->new_records.insert(record);
    }
  }
}

// Every node and record of the newest published state. Only while no write
// is in flight (the test's own thread is the only writer).
inline Reachable walk_published(Database* db, uint64_t since_gen = UINT64_MAX) {
  const internal::RootSet* roots = db->impl()->published_for_test();
  Reachable out;
  out.nodes.insert(roots);
  for (uint32_t tree_idx = 0; tree_idx < roots->tree_count; ++tree_idx) {
    const internal::TreeState& tree = roots->trees()[tree_idx];
    if (tree.root != nullptr) walk_node(tree.root, tree.has_records, since_gen, &out);
  }
  return out;
}

inline size_t overlap(const std::set<const void*>& a, const std::set<const void*>& b) {
  size_t count = 0;
  for (const void* ptr : a) count += b.count(ptr);
  return count;
}

}  // namespace solo::test
