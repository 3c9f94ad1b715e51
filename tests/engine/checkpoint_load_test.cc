// The checkpoint load bulk-builds every table and index (engine/src/
// table_loader.cc): a round trip through a checkpoint gives back every row and
// every index entry, trees of height >= 3 included, which then take ordinary
// changes; a checkpoint whose rows are out of order, duplicated, split into
// two runs, or break a unique index is refused as Corruption naming the file
// and the offset of the offending row.
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint_format.h"
#include "crc32c.h"
#include "db_impl.h"
#include "durable_codec.h"
#include "durable_util.h"
#include "fault_file_system.h"
#include "solo/codec.h"

using namespace solo;
using test::FaultFileSystem;

namespace {

const char* kDir = "/db";

Options load_options(FaultFileSystem* fs) {
  Options options;
  options.check_invariants = true;  // btree_check on every tree after every round
  options.dir = kDir;
  options.fs = fs;
  options.log_segment_bytes = 4 << 20;
  options.log_segments = 2;
  options.checkpoint_log_bytes = 0;  // explicit checkpoints only
  return options;
}

TableSchema orders_schema() {
  return TableSchema{"orders",
                     {ColumnDef::Integer("w", true), ColumnDef::Integer("d", true),
                      ColumnDef::BigInt("id", true), ColumnDef::Integer("customer", true),
                      ColumnDef::VarChar("note", 40, false), ColumnDef::BigInt("amount", true)},
                     {0, 1, 2}};
}

// Long primary keys: leaves limited by their key heap, not by 32 entries.
TableSchema names_schema() {
  return TableSchema{
      "names", {ColumnDef::VarChar("name", 190, true), ColumnDef::Integer("n", true)}, {0}};
}

TableSchema empty_schema() {
  return TableSchema{"empty", {ColumnDef::BigInt("k", true), ColumnDef::Integer("v", true)}, {0}};
}

std::string long_name(int n) {
  char head[16];
  std::snprintf(head, sizeof(head), "%07d", (n * 7919) % 100003);
  return std::string(head) + std::string(150 + n % 30, static_cast<char>('a' + n % 26));
}

// Tables orders (20,000 rows; a non-unique index on customer, a unique one on
// the nullable note, NULL for most rows), names (3,000 long keys; unique index
// on n) and empty (an index, no rows), a dropped table between them, and some
// updates and deletes so that the rows are not in the order they came in.
void fill(Database& db) {
  REQUIRE(
      db.write([&](WriteTxn& txn) {
          if (!txn.create_table(orders_schema()).ok()) return Status::Internal("orders");
          if (!txn.create_index(IndexSchema{"orders_by_customer", "orders", {3}, false}).ok()) {
            return Status::Internal("index");
          }
          if (!txn.create_index(IndexSchema{"orders_note", "orders", {4}, true}).ok()) {
            return Status::Internal("unique index");
          }
          if (!txn.create_table(TableSchema{"gone", {ColumnDef::BigInt("k", true)}, {0}}).ok()) {
            return Status::Internal("gone");
          }
          if (!txn.create_table(names_schema()).ok()) return Status::Internal("names");
          if (!txn.create_index(IndexSchema{"names_n", "names", {1}, true}).ok()) {
            return Status::Internal("names_n");
          }
          if (!txn.create_table(empty_schema()).ok()) return Status::Internal("empty");
          return txn.create_index(IndexSchema{"empty_v", "empty", {1}, false}).status();
        }).ok());
  REQUIRE(db.write([&](WriteTxn& txn) {
              TableId gone = txn.catalog().find_table("gone")->id;
              if (!txn.insert(gone, {Value::Int(1)}).ok()) return Status::Internal("gone row");
              return txn.drop_table(gone);
            }).ok());
  for (int batch = 0; batch < 20; ++batch) {
    REQUIRE(db.write([&](WriteTxn& txn) {
                TableId orders = txn.catalog().find_table("orders")->id;
                for (int row_idx = 0; row_idx < 1000; ++row_idx) {
                  int n = batch * 1000 + row_idx;
                  Value note =
                      n % 10 == 0 ? Value::String("note-" + std::to_string(n)) : Value::Null();
                  Status s =
                      txn.insert(orders, {Value::Int(1 + n % 3), Value::Int(n % 10), Value::Int(n),
                                          Value::Int((n * 37) % 3000), note, Value::Int(n * 100)});
                  if (!s.ok()) return s;
                }
                return Status::OK();
              }).ok());
  }
  REQUIRE(db.write([&](WriteTxn& txn) {
              TableId names = txn.catalog().find_table("names")->id;
              for (int n = 0; n < 3000; ++n) {
                Status s = txn.insert(names, {Value::String(long_name(n)), Value::Int(n)});
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  // Updates (an index column changes) and deletes.
  REQUIRE(db.write([&](WriteTxn& txn) {
              const TableInfo* orders = txn.catalog().find_table("orders");
              for (int n = 0; n < 20000; n += 97) {
                Row key_row = {Value::Int(1 + n % 3), Value::Int(n % 10), Value::Int(n)};
                std::string key;
                Status s = append_key(orders->schema, orders->schema.primary_key, key_row, &key);
                if (!s.ok()) return s;
                if (n % 2 == 0) {
                  s = txn.erase(orders->id, key);
                } else {
                  s = txn.update(orders->id, key,
                                 {Value::Int(1 + n % 3), Value::Int(n % 10), Value::Int(n),
                                  Value::Int(2999 - n % 3000), Value::Null(), Value::Int(-n)});
                }
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
}

uint32_t height_of(Database& db, const std::string& name) {
  const internal::RootSet* roots = db.impl()->published_for_test();
  const Catalog& catalog = *roots->catalog;
  TreeId id = catalog.find_table(name) != nullptr ? catalog.find_table(name)->id
                                                  : catalog.find_index(name)->id;
  return roots->trees()[id].height;
}

std::string checkpoint_path(FaultFileSystem& fs) {
  std::string found;
  for (const std::string& path : fs.paths()) {
    if (path.find("/checkpoint-") != std::string::npos && path.ends_with(".ckpt")) found = path;
  }
  REQUIRE(!found.empty());
  return found;
}

// A checkpoint file's blocks, to be changed and written back with valid CRCs.
struct Block {
  uint8_t type;
  std::string body;  // after the type byte
};

struct CheckpointFile {
  std::string header;
  std::vector<Block> blocks;  // the end block included

  explicit CheckpointFile(const std::string& data) {
    header = data.substr(0, internal::kCheckpointHeaderBytes);
    uint64_t offset = internal::kCheckpointHeaderBytes;
    while (offset < data.size()) {
      uint32_t length = internal::load_u32(data.data() + offset + 4);
      blocks.push_back(Block{static_cast<uint8_t>(data[offset + 8]),
                             data.substr(offset + internal::kBlockHeaderBytes + 1, length - 1)});
      offset += internal::kBlockHeaderBytes + length;
    }
  }
  uint64_t block_offset(size_t block_idx) const {
    uint64_t offset = internal::kCheckpointHeaderBytes;
    for (size_t idx = 0; idx < block_idx; ++idx) {
      offset += internal::kBlockHeaderBytes + 1 + blocks[idx].body.size();
    }
    return offset;
  }
  std::string bytes() const {
    std::string out = header;
    for (const Block& block : blocks) {
      std::string framed(internal::kBlockHeaderBytes, '\0');
      framed.push_back(static_cast<char>(block.type));
      framed += block.body;
      uint32_t length = static_cast<uint32_t>(framed.size() - internal::kBlockHeaderBytes);
      internal::store_u32(framed.data() + 4, length);
      internal::store_u32(framed.data(), internal::crc32c_extend(0, framed.data() + 4, 4 + length));
      out += framed;
    }
    return out;
  }
};

struct RowsBlock {
  uint32_t table = 0;
  std::vector<std::pair<std::string, std::string>> rows;  // key, row

  explicit RowsBlock(const std::string& body) {
    internal::ByteReader in{body};
    uint32_t count = 0;
    REQUIRE(in.get_u32(&table));
    REQUIRE(in.get_u32(&count));
    for (uint32_t row_idx = 0; row_idx < count; ++row_idx) {
      std::string_view key, row;
      REQUIRE(in.get_bytes(&key));
      REQUIRE(in.get_bytes(&row));
      rows.emplace_back(std::string(key), std::string(row));
    }
  }
  std::string body() const {
    std::string out;
    internal::put_u32(&out, table);
    internal::put_u32(&out, static_cast<uint32_t>(rows.size()));
    for (const auto& [key, row] : rows) {
      internal::put_bytes(&out, key);
      internal::put_bytes(&out, row);
    }
    return out;
  }
  // Offset of row `row_idx` inside the block's body.
  uint64_t row_at(size_t row_idx) const {
    std::string out;
    internal::put_u32(&out, table);
    internal::put_u32(&out, 0);
    for (size_t idx = 0; idx < row_idx; ++idx) {
      internal::put_bytes(&out, rows[idx].first);
      internal::put_bytes(&out, rows[idx].second);
    }
    return out.size();
  }
};

// File offset of row `row_idx` of block `block_idx`.
uint64_t row_offset(const CheckpointFile& file, size_t block_idx, const RowsBlock& rows,
                    size_t row_idx) {
  return file.block_offset(block_idx) + internal::kBlockHeaderBytes + 1 + rows.row_at(row_idx);
}

void write_file(FaultFileSystem& fs, const std::string& path, const std::string& data) {
  auto file = fs.open(path, OpenMode::kCreate);
  REQUIRE(file.ok());
  REQUIRE((*file)->write_at(0, data).ok());
  REQUIRE((*file)->sync().ok());
}

// A directory holding a checkpoint of fill()'s state (and nothing after it).
std::string make_checkpoint(FaultFileSystem& fs, std::string* state = nullptr) {
  auto db = test::open_dir(load_options(&fs));
  fill(*db);
  REQUIRE(db->checkpoint().ok());
  if (state != nullptr) *state = test::dump_state(*db);
  db->close();
  return checkpoint_path(fs);
}

// The index of the first rows block of table `table` (-1 if none).
int first_rows_block(const CheckpointFile& file, uint32_t table) {
  for (size_t block_idx = 0; block_idx < file.blocks.size(); ++block_idx) {
    const Block& block = file.blocks[block_idx];
    if (block.type == static_cast<uint8_t>(internal::CheckpointBlock::kRows) &&
        RowsBlock(block.body).table == table) {
      return static_cast<int>(block_idx);
    }
  }
  return -1;
}

void require_refused(FaultFileSystem& fs, const std::string& path, uint64_t offset,
                     const std::string& what) {
  auto opened = Database::open(load_options(&fs));
  REQUIRE(!opened.ok());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().IsCorruption());
  REQUIRE(opened.status().message().find(path + " at offset " + std::to_string(offset)) !=
          std::string::npos);
  REQUIRE(opened.status().message().find(what) != std::string::npos);
}

}  // namespace

TEST_CASE("a checkpoint round trip gives back every row and index entry") {
  FaultFileSystem fs;
  std::string before;
  make_checkpoint(fs, &before);
  {
    auto db = test::open_dir(load_options(&fs));
    REQUIRE(test::dump_state(*db) == before);
    // Tall trees: orders (20k rows, 32 per leaf) and its indexes (24 per leaf),
    // names (long keys: 4 per leaf).
    REQUIRE(height_of(*db, "orders") >= 3);
    REQUIRE(height_of(*db, "orders_by_customer") >= 3);
    REQUIRE(height_of(*db, "names") >= 3);
    REQUIRE(db->stats().replayed_rounds == 0);  // all of it came from the checkpoint
    // Lookups through each index agree with the table.
    REQUIRE(db->read([&](ReadTxn& txn) {
                const IndexInfo* by_customer = txn.catalog().find_index("orders_by_customer");
                uint64_t entries = 0;
                for (auto cursor = txn.scan(by_customer->id, KeyRange::All()); cursor->valid();
                     cursor->next()) {
                  // An index entry is (customer, primary key); its value is where the key starts.
                  std::string_view row;
                  Status s = txn.get(by_customer->table, cursor->value(), &row);
                  if (!s.ok()) return s;
                  entries++;
                }
                return entries == txn.entry_count(by_customer->table) ? Status::OK()
                                                                      : Status::Internal("count");
              }).ok());
    // The bulk-built trees take ordinary changes: inserts inside an index's
    // ranges and at the table's end, updates, deletes, and a unique check.
    REQUIRE(db->write([&](WriteTxn& txn) {
                TableId orders = txn.catalog().find_table("orders")->id;
                for (int n = 20000; n < 22000; ++n) {
                  Status s = txn.insert(
                      orders, {Value::Int(1 + n % 3), Value::Int(n % 10), Value::Int(n),
                               Value::Int((n * 13) % 3000), Value::Null(), Value::Int(n)});
                  if (!s.ok()) return s;
                }
                return Status::OK();
              }).ok());
    Status duplicate = db->write([&](WriteTxn& txn) {
      TableId orders = txn.catalog().find_table("orders")->id;
      return txn.insert(orders, {Value::Int(1), Value::Int(0), Value::Int(90000), Value::Int(1),
                                 Value::String("note-10"), Value::Int(0)});
    });
    REQUIRE(duplicate.IsAlreadyExists());
    REQUIRE(db->write([&](WriteTxn& txn) {
                TableId names = txn.catalog().find_table("names")->id;
                for (int n = 3000; n < 3300; ++n) {
                  Status s = txn.insert(names, {Value::String(long_name(n)), Value::Int(n)});
                  if (!s.ok()) return s;
                }
                return Status::OK();
              }).ok());
    before = test::dump_state(*db);
    db->close();
  }
  // Again from that checkpoint plus the log, then from a new checkpoint alone.
  {
    auto db = test::open_dir(load_options(&fs));
    REQUIRE(test::dump_state(*db) == before);
    REQUIRE(db->checkpoint().ok());
    db->close();
  }
  auto db = test::open_dir(load_options(&fs));
  REQUIRE(db->stats().replayed_rounds == 0);
  REQUIRE(test::dump_state(*db) == before);
}

TEST_CASE("a checkpoint with rows out of order is refused, naming file and offset") {
  FaultFileSystem fs;
  const std::string path = make_checkpoint(fs);
  const CheckpointFile original(fs.contents(path));
  // Table 0 (orders) has many rows blocks; names (id 4) has long rows.
  const int block_idx = first_rows_block(original, 0);
  REQUIRE(block_idx >= 0);
  const RowsBlock rows(original.blocks[block_idx].body);
  REQUIRE(rows.rows.size() > 10);

  SECTION("two rows swapped") {
    CheckpointFile file = original;
    RowsBlock changed = rows;
    std::swap(changed.rows[5], changed.rows[6]);
    file.blocks[block_idx].body = changed.body();
    write_file(fs, path, file.bytes());
    require_refused(fs, path, row_offset(file, block_idx, changed, 6),
                    "out of order or duplicated");
  }
  SECTION("a row twice") {
    CheckpointFile file = original;
    RowsBlock changed = rows;
    changed.rows[6] = changed.rows[5];
    file.blocks[block_idx].body = changed.body();
    write_file(fs, path, file.bytes());
    require_refused(fs, path, row_offset(file, block_idx, changed, 6),
                    "out of order or duplicated");
  }
  SECTION("order broken across two blocks") {
    CheckpointFile file = original;
    RowsBlock next(file.blocks[block_idx + 1].body);
    REQUIRE(next.table == 0);
    next.rows[0] = rows.rows.back();  // equal to the last row of the block before
    file.blocks[block_idx + 1].body = next.body();
    write_file(fs, path, file.bytes());
    require_refused(fs, path, row_offset(file, block_idx + 1, next, 0),
                    "out of order or duplicated");
  }
  SECTION("a table's rows in two runs") {
    CheckpointFile file = original;
    const int names_block = first_rows_block(file, 4);
    REQUIRE(names_block > block_idx + 1);
    // Move orders' first rows block behind the names table's first one.
    Block moved = file.blocks[block_idx];
    file.blocks.erase(file.blocks.begin() + block_idx);
    file.blocks.insert(file.blocks.begin() + names_block, moved);
    write_file(fs, path, file.bytes());
    // Orders now starts with its second block: still in order; then names;
    // then orders again.
    require_refused(fs, path, file.block_offset(names_block), "not in one run");
  }
  SECTION("a key that does not match its row") {
    CheckpointFile file = original;
    RowsBlock changed = rows;
    changed.rows[3].first = changed.rows[3].first + "x";  // still between rows 2 and 4
    file.blocks[block_idx].body = changed.body();
    write_file(fs, path, file.bytes());
    require_refused(fs, path, row_offset(file, block_idx, changed, 3), "does not match its key");
  }
  SECTION("a unique index broken") {
    CheckpointFile file = original;
    const int names_block = first_rows_block(file, 4);
    RowsBlock changed(file.blocks[names_block].body);
    TableSchema schema = names_schema();
    Row first, second;
    REQUIRE(decode_row(schema, changed.rows[2].second, &first).ok());
    REQUIRE(decode_row(schema, changed.rows[7].second, &second).ok());
    second[1] = first[1];  // the same n: names_n is unique
    REQUIRE(encode_row(schema, second, &changed.rows[7].second).ok());
    file.blocks[names_block].body = changed.body();
    write_file(fs, path, file.bytes());
    // The entry sorted second of the two (n, then the primary key) is reported.
    const size_t reported = changed.rows[2].first < changed.rows[7].first ? 7 : 2;
    require_refused(fs, path, row_offset(file, names_block, changed, reported),
                    "duplicate key for unique index names_n");
  }
  SECTION("unchanged, the file loads") {
    auto db = test::open_dir(load_options(&fs));
    REQUIRE(db->stats().recovered_checkpoint_bytes > 0);
  }
}

TEST_CASE("recovery tells its progress: the checkpoint's bytes, then the log's rounds") {
  FaultFileSystem fs;
  std::string before;
  make_checkpoint(fs, &before);
  std::vector<RecoveryProgress> told;
  // A phase's end is told by the thread that opens, once everything read is
  // applied (the reader thread that tells the rest is ahead of the owner by
  // its read-ahead).
  const std::thread::id opener = std::this_thread::get_id();
  bool end_told_by_opener = true;
  Options options = load_options(&fs);
  options.recovery_progress_ms = 0;  // every block
  options.recovery_progress = [&](const RecoveryProgress& progress) {
    if (progress.finished && std::this_thread::get_id() != opener) end_told_by_opener = false;
    told.push_back(progress);
  };
  auto check_phase = [&told, &end_told_by_opener](RecoveryProgress::Phase phase) {
    std::vector<RecoveryProgress> calls;
    for (const RecoveryProgress& progress : told) {
      if (progress.phase == phase) calls.push_back(progress);
    }
    REQUIRE(calls.size() >= 2);
    for (size_t idx = 1; idx < calls.size(); ++idx) {
      REQUIRE(calls[idx].done_bytes >= calls[idx - 1].done_bytes);
      REQUIRE(calls[idx - 1].finished == false);
    }
    REQUIRE(calls.back().finished);
    REQUIRE(end_told_by_opener);
    return calls;
  };
  {
    auto db = test::open_dir(options);
    REQUIRE(test::dump_state(*db) == before);
    auto calls = check_phase(RecoveryProgress::Phase::kCheckpoint);
    REQUIRE(calls.back().total_bytes > 0);
    REQUIRE(calls.back().done_bytes == calls.back().total_bytes);
    REQUIRE(calls.front().done_bytes < calls.back().total_bytes);
    REQUIRE(db->stats().replayed_rounds == 0);
    // Nothing to replay: no log phase.
    for (const RecoveryProgress& progress : told) {
      REQUIRE(progress.phase == RecoveryProgress::Phase::kCheckpoint);
    }
    for (int n = 0; n < 5; ++n) {
      REQUIRE(db->write([&](WriteTxn& txn) {
                  TableId orders = txn.catalog().find_table("orders")->id;
                  return txn.insert(orders, {Value::Int(1), Value::Int(0), Value::Int(50000 + n),
                                             Value::Int(1), Value::Null(), Value::Int(n)});
                }).ok());
    }
    db->close();  // too little log for a checkpoint at close
  }
  told.clear();
  auto db = test::open_dir(options);
  const uint64_t replayed = db->stats().replayed_rounds;
  REQUIRE(replayed >= 5);
  auto calls = check_phase(RecoveryProgress::Phase::kLog);
  REQUIRE(calls.back().rounds == replayed);
  REQUIRE(calls.back().done_bytes > 0);
  REQUIRE(calls.back().total_bytes == 0);
  // With the default interval a quick phase is told only its end.
  told.clear();
  db->close();
  db.reset();
  options.recovery_progress_ms = 60'000;
  db = test::open_dir(options);
  REQUIRE(told.size() == 2);
  REQUIRE(told[0].phase == RecoveryProgress::Phase::kCheckpoint);
  REQUIRE(told[0].finished);
  REQUIRE(told[1].phase == RecoveryProgress::Phase::kLog);
  REQUIRE(told[1].finished);
}
