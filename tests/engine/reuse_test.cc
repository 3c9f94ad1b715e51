// Retired nodes come back, but only once no held snapshot can reach them.
// Each property is also checked with the engine's test switch that breaks it,
// to show that the check would notice.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "internal_util.h"
#include "test_util.h"

using namespace solo;

namespace {

constexpr int kRows = 3000;

// Rows 0 .. kRows-1 of an accounts table.
Status insert_rows(WriteTxn& txn, TableId table) {
  for (int id = 0; id < kRows; ++id) {
    Status s = txn.insert(table, {Value::Int(id), Value::String("name"), Value::Int(id)});
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Row `id` of an accounts table, replaced by one of the same size: its record
// can reuse a spare one.
Status update_row(WriteTxn& txn, const TableSchema& schema, TableId table, int64_t id,
                  std::mt19937_64& rng) {
  return txn.update(table, test::int_key(schema, id),
                    {Value::Int(id), Value::String(rng() % 2 ? "NAME" : "name"),
                     Value::Int(static_cast<int64_t>(rng() % 1000))});
}

struct Fixture {
  std::unique_ptr<Database> db;
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  std::mt19937_64 rng{7};

  explicit Fixture(Options options) {
    db = test::open_db(options);
    REQUIRE(db->write([&](WriteTxn& txn) {
                table = *txn.create_table(schema);
                return insert_rows(txn, table);
              }).ok());
  }

  // One transaction updating one random row: copies its leaf-to-root path.
  void update_one() {
    int64_t id = static_cast<int64_t>(rng() % kRows);
    REQUIRE(db->write([&](WriteTxn& txn) { return update_row(txn, schema, table, id, rng); }).ok());
  }
};

std::set<const void*> spare_set(Database* db) {
  std::vector<const void*> spare = db->impl()->pool_.spare_objects();
  return std::set<const void*>(spare.begin(), spare.end());
}

// Holds a snapshot over 20 updates, releases it and runs one more round.
// Returns how many of the nodes that only the snapshot reached came back to
// the spare arrays or are already reused; *only_held: how many there were.
size_t returned_after_release(Options options, size_t* only_held) {
  Fixture fixture(options);
  Snapshot held = fixture.db->snapshot();
  test::Reachable before = test::walk_published(fixture.db.get());
  uint64_t held_gen = held.generation();
  for (int update = 0; update < 20; ++update) fixture.update_one();
  held.release();
  fixture.update_one();  // this round reclaims what only `held` reached
  test::Reachable after = test::walk_published(fixture.db.get(), held_gen);
  std::set<const void*> spare = spare_set(fixture.db.get());
  size_t returned = 0;
  *only_held = 0;
  for (const void* node : before.nodes) {
    if (after.nodes.count(node) != 0 && after.new_nodes.count(node) == 0) continue;  // still shared
    ++*only_held;
    returned += spare.count(node) + after.new_nodes.count(node);
  }
  return returned;
}

// Holds a snapshot over 300 updates; returns how many objects the snapshot
// reaches were, at some check, in a spare array or reused by a newer node.
size_t reused_while_held(Options options) {
  Fixture fixture(options);
  Snapshot held = fixture.db->snapshot();
  // Read once: with the unsafe switch the held RootSet itself is reclaimed
  // (and poisoned under ASan), so the test must not touch it again.
  uint64_t held_gen = held.generation();
  test::Reachable before = test::walk_published(fixture.db.get());
  size_t clashes = 0;
  for (int update = 0; update < 300; ++update) {
    fixture.update_one();
    test::Reachable now = test::walk_published(fixture.db.get(), held_gen);
    clashes += test::overlap(now.new_nodes, before.nodes) +
               test::overlap(now.new_records, before.records);
    if (update % 50 == 49) {
      std::set<const void*> spare = spare_set(fixture.db.get());
      clashes += test::overlap(before.nodes, spare) + test::overlap(before.records, spare);
    }
  }
  if (clashes == 0) {
    // The held snapshot still reads what it read (it is safe to read it here).
    ReadTxn txn(held);
    REQUIRE(txn.entry_count(fixture.table) == kRows);
  }
  held.release();
  return clashes;
}

}  // namespace

TEST_CASE("after a snapshot is released its nodes come back for reuse") {
  size_t only_held = 0;
  size_t returned = returned_after_release(Options{}, &only_held);
  INFO("returned " << returned << " of " << only_held);
  REQUIRE(only_held > 20);  // 20 copied paths
  REQUIRE(returned == only_held);
}

// Holds a snapshot over 20 updates, releases it, then runs 300 more. Returns
// how many of the snapshot's nodes the newest state reuses (same address,
// newer generation); *fresh: objects taken from fresh memory meanwhile.
size_t reused_after_release(Options options, uint64_t* fresh) {
  Fixture fixture(options);
  Snapshot held = fixture.db->snapshot();
  test::Reachable before = test::walk_published(fixture.db.get());
  uint64_t held_gen = held.generation();
  for (int update = 0; update < 20; ++update) fixture.update_one();
  held.release();
  fixture.update_one();
  fixture.update_one();
  uint64_t fresh_before = fixture.db->stats().fresh_objects;
  size_t reused = 0;
  for (int update = 0; update < 300; ++update) {
    fixture.update_one();
    test::Reachable after = test::walk_published(fixture.db.get(), held_gen);
    reused = std::max(reused, test::overlap(after.new_nodes, before.nodes));
  }
  *fresh = fixture.db->stats().fresh_objects - fresh_before;
  return reused;
}

TEST_CASE("the released nodes are handed out again at the same addresses") {
  uint64_t fresh = 0;
  size_t reused = reused_after_release(Options{}, &fresh);
  INFO("reused " << reused << " fresh " << fresh);
  REQUIRE(reused > 0);
  REQUIRE(fresh < 20);  // copies come from the spare arrays, not fresh memory
}

TEST_CASE("the address check fails when reuse is switched off") {
  Options options;
  options.reuse_retired = false;
  uint64_t fresh = 0;
  REQUIRE(reused_after_release(options, &fresh) == 0);
  REQUIRE(fresh > 300);
}

TEST_CASE("the reuse check fails when reuse is switched off") {
  Options options;
  options.reuse_retired = false;
  size_t only_held = 0;
  REQUIRE(returned_after_release(options, &only_held) == 0);
  REQUIRE(only_held > 20);
}

TEST_CASE("nothing a held snapshot reaches is reused") {
  REQUIRE(reused_while_held(Options{}) == 0);
}

TEST_CASE("the held-snapshot check fails when reclamation ignores snapshots") {
  Options options;
  options.unsafe_ignore_held_snapshots = true;
  REQUIRE(reused_while_held(options) > 0);
}

TEST_CASE("objects made after a held snapshot are reclaimed while it is held") {
  Fixture fixture(Options{});
  Snapshot held = fixture.db->snapshot();
  for (int update = 0; update < 500; ++update) fixture.update_one();
  // Only what the held snapshot reaches waits: its ~130 nodes and the ~460
  // rows first updated since; not the 500 x (3 nodes + record + root set)
  // retired in all.
  uint64_t pending = fixture.db->stats().retired_pending;
  INFO("pending " << pending);
  REQUIRE(pending < 800);
  REQUIRE(pending > 20);
  held.release();
  fixture.update_one();
  REQUIRE(fixture.db->stats().retired_pending <= 10);
}

TEST_CASE("reclamation per round is bounded") {
  Options options;
  options.reclaim_batch = 100;
  Fixture fixture(options);
  // A snapshot per round pins every generation: nothing can be reclaimed.
  std::vector<Snapshot> held;
  for (int update = 0; update < 250; ++update) {
    held.push_back(fixture.db->snapshot());
    fixture.update_one();
  }
  uint64_t backlog = fixture.db->stats().retired_pending;
  REQUIRE(backlog > 1000);  // paths of ~3 nodes, records and root sets
  held.clear();
  fixture.update_one();
  uint64_t after_one = fixture.db->stats().retired_pending;
  // One round reclaims at most max(batch, 2 x what the round retired).
  REQUIRE(after_one + 100 + 16 >= backlog);
  REQUIRE(after_one < backlog);
  for (int update = 0; update < 200 && fixture.db->stats().retired_pending > 20; ++update) {
    fixture.update_one();
  }
  REQUIRE(fixture.db->stats().retired_pending <= 20);
}

// Fresh memory (issue 7): a helper thread keeps arenas touched ahead of the
// owner, which takes a ready one without waiting or else makes its own.
TEST_CASE("prefaulted arenas are taken first; the owner makes its own when none is ready") {
  constexpr uint32_t kObject = 4096;
  const size_t per_arena = internal::ObjectPool::arena_size() / kObject;
  internal::ObjectPool pool(/*reuse=*/true, /*prefault_arenas=*/2);
  for (int waited = 0; pool.ready_arenas() < 2 && waited < 2000; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(pool.ready_arenas() == 2);
  // Two arenas' worth: both come from the thread.
  std::vector<char*> objects;
  for (size_t idx = 0; idx < 2 * per_arena; ++idx) {
    objects.push_back(static_cast<char*>(pool.allocate(kObject)));
    std::memset(objects.back(), static_cast<int>(idx), kObject);
  }
  REQUIRE(pool.prefaulted_taken() == 2);
  REQUIRE(pool.arenas_made() == 0);
  REQUIRE(pool.arena_bytes() == 2 * internal::ObjectPool::arena_size());
  // The objects are distinct memory: each still holds what was written.
  for (size_t idx = 0; idx < objects.size(); ++idx) {
    REQUIRE(objects[idx][kObject - 1] == static_cast<char>(idx));
  }
  // More arenas than the thread had ready: every one is accounted for,
  // taken or made, and the pool goes on.
  for (size_t idx = 0; idx < 4 * per_arena; ++idx) REQUIRE(pool.allocate(kObject) != nullptr);
  REQUIRE(pool.prefaulted_taken() + pool.arenas_made() == 6);
}

// The helper runs below the owner (Options::prefault_sched_idle): its
// wake-ups must not take a core from the owner.
TEST_CASE("the prefaulting thread runs in the idle class, or at nice 10") {
  for (bool sched_idle : {true, false}) {
    internal::ObjectPool pool(/*reuse=*/true, /*prefault_arenas=*/2, sched_idle);
    for (int waited = 0; pool.ready_arenas() < 2 && waited < 2000; ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(pool.ready_arenas() == 2);  // the thread set its priority first
    test::require_thread_class("solo-prefault", sched_idle, 10);
  }
  // A database's helper, with the default options.
  auto db = test::open_db();
  int policy = -1;
  int nice = -100;
  for (int waited = 0; waited < 400; ++waited) {
    if (test::thread_priority("solo-prefault", &policy, &nice) && policy == SCHED_IDLE) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(policy == SCHED_IDLE);
}

TEST_CASE("without prefaulting the owner makes every arena") {
  internal::ObjectPool pool(/*reuse=*/true, /*prefault_arenas=*/0);
  REQUIRE(pool.allocate(64) != nullptr);
  REQUIRE(pool.ready_arenas() == 0);
  REQUIRE(pool.prefaulted_taken() == 0);
  REQUIRE(pool.arenas_made() == 1);
}

// A checkpoint releases each table of its snapshot once written
// (SnapshotRegistry::release_tree): the objects of a released tree that only
// the snapshot reaches are reused while it is still held; those of the
// trees it has not released are not.
namespace {

struct TwoTables {
  std::unique_ptr<Database> db;
  TableSchema schema = test::accounts_schema();
  TableId released = 0;  // the tree the holder says it is done with
  TableId kept = 0;
  std::mt19937_64 rng{11};

  TwoTables() {
    db = test::open_db(Options{});
    TableSchema other = schema;
    other.name = "accounts2";
    REQUIRE(db->write([&](WriteTxn& txn) {
                released = *txn.create_table(schema);
                kept = *txn.create_table(other);
                Status s = insert_rows(txn, released);
                return s.ok() ? insert_rows(txn, kept) : s;
              }).ok());
  }

  // One transaction updating a random row of each table.
  void update_both() {
    int64_t id = static_cast<int64_t>(rng() % kRows);
    REQUIRE(db->write([&](WriteTxn& txn) {
                Status s = update_row(txn, schema, released, id, rng);
                return s.ok() ? update_row(txn, schema, kept, id, rng) : s;
              }).ok());
  }
};

// The nodes and records of one tree of `roots`, and each record's bytes.
struct TreeObjects {
  test::Reachable reach;
  std::vector<std::string> rows;
};

TreeObjects tree_objects(const internal::RootSet* roots, TreeId tree) {
  TreeObjects out;
  test::walk_node(roots->trees()[tree].root, /*has_records=*/true, UINT64_MAX, &out.reach);
  for (const void* record : out.reach.records) {
    out.rows.emplace_back(static_cast<const internal::Record*>(record)->view());
  }
  std::sort(out.rows.begin(), out.rows.end());
  return out;
}

// Holds the newest state over 300 rounds that update both tables, after
// saying that it is done with `released` (unless `release` is false).
// Returns how many objects of each table that the held state reaches were
// in a spare array or reused at some check; the held `kept` table must read
// back byte for byte.
std::pair<size_t, size_t> reused_by_table(bool release) {
  TwoTables fixture;
  internal::DbImpl* impl = fixture.db->impl();
  uint32_t slot;
  const internal::RootSet* held = impl->acquire(&slot);
  if (release) impl->release_tree(slot, fixture.released);
  const TreeObjects released_before = tree_objects(held, fixture.released);
  const TreeObjects kept_before = tree_objects(held, fixture.kept);
  size_t released_reused = 0;
  size_t kept_reused = 0;
  for (int update = 0; update < 300; ++update) {
    fixture.update_both();
    if (update % 50 != 49) continue;
    std::set<const void*> spare = spare_set(fixture.db.get());
    test::Reachable now = test::walk_published(fixture.db.get(), held->gen);
    kept_reused += test::overlap(kept_before.reach.nodes, spare) +
                   test::overlap(kept_before.reach.records, spare) +
                   test::overlap(now.new_nodes, kept_before.reach.nodes) +
                   test::overlap(now.new_records, kept_before.reach.records);
    released_reused += test::overlap(released_before.reach.nodes, spare) +
                       test::overlap(released_before.reach.records, spare) +
                       test::overlap(now.new_nodes, released_before.reach.nodes) +
                       test::overlap(now.new_records, released_before.reach.records);
  }
  // The tree not released reads what it read (only it is safe to read here).
  TreeObjects kept_after = tree_objects(held, fixture.kept);
  REQUIRE(kept_after.rows == kept_before.rows);
  REQUIRE(kept_after.reach.nodes == kept_before.reach.nodes);
  impl->release(slot);
  return {released_reused, kept_reused};
}

}  // namespace

TEST_CASE("a released tree's objects are reused while the snapshot is held; the others' are not") {
  auto [released_reused, kept_reused] = reused_by_table(/*release=*/true);
  INFO("released tree: " << released_reused << " reused; kept tree: " << kept_reused);
  REQUIRE(released_reused > 100);
  REQUIRE(kept_reused == 0);
}

TEST_CASE("without release_tree neither tree's held objects are reused") {
  auto [released_reused, kept_reused] = reused_by_table(/*release=*/false);
  REQUIRE(released_reused == 0);
  REQUIRE(kept_reused == 0);
}

TEST_CASE("a generation's trees are released only when every holder released them") {
  internal::SnapshotRegistry registry;
  internal::RootSet roots_storage{};
  roots_storage.gen = 7;  // 0 would mean "being taken"
  std::atomic<const internal::RootSet*> published{&roots_storage};
  uint32_t first, second;
  registry.acquire(published, &first);
  registry.acquire(published, &second);
  registry.release_tree(first, 2);
  registry.release_tree(first, 5);
  registry.release_tree(second, 5);
  registry.release_tree(second, internal::SnapshotRegistry::kMaskTrees);  // beyond the mask: kept
  std::vector<internal::Pin> pins;
  REQUIRE(registry.pinned(&pins));
  REQUIRE(pins.size() == 1);
  REQUIRE(pins[0].released_trees == (uint64_t{1} << 5));
  registry.release(second);
  REQUIRE(registry.pinned(&pins));
  REQUIRE(pins.size() == 1);
  REQUIRE(pins[0].released_trees == ((uint64_t{1} << 2) | (uint64_t{1} << 5)));
  // A slot taken again starts with nothing released.
  registry.release(first);
  registry.acquire(published, &first);
  REQUIRE(registry.pinned(&pins));
  REQUIRE(pins.size() == 1);
  REQUIRE(pins[0].released_trees == 0);
  registry.release(first);
}
