// Helpers shared by the durability tests.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "solo/database.h"
#include "test_util.h"

namespace solo::test {

// Options for a database in `dir` on the file system `fs` (a fault-injecting
// one) with a tiny log ring (2 segments of 8 KiB), so that tests cross
// segment and checkpoint boundaries often, and a fixed checkpoint interval
// (0: explicit checkpoints only).
inline Options small_log_options(FileSystem* fs, const std::string& dir,
                                 uint64_t checkpoint_log_bytes) {
  Options options;
  options.check_invariants = true;
  options.dir = dir;
  options.fs = fs;
  options.log_segment_bytes = 8 * 1024;
  options.log_segments = 2;
  options.checkpoint_log_bytes = checkpoint_log_bytes;
  options.checkpoint_state_ratio = 0;
  return options;
}

// A fresh directory under $TMPDIR (removed by the destructor).
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/solo-dur-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    REQUIRE(made != nullptr);
    path = made;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// Every entry of every tree, the catalog and the byte counts of a database:
// two databases with the same logical state give the same string.
inline std::string dump_state(Database& db) {
  std::string out;
  db.read([&](ReadTxn& txn) {
    const Catalog& catalog = txn.catalog();
    for (TreeId tree = 0; tree < catalog.tree_count(); ++tree) {
      if (const TableInfo* table = catalog.table(tree)) {
        out += "table " + table->schema.name + " indexes";
        for (IndexId index : table->indexes) out += " " + std::to_string(index);
      } else if (const IndexInfo* index = catalog.index(tree)) {
        // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive)
        // on the chained operator+ here.
        out += "index ";
        out += index->schema.name;
        if (index->schema.unique) out += " unique";
      } else {
        out += "dropped";
      }
      out += ":";
      auto cursor = txn.scan(tree, KeyRange::All());
      for (; cursor->valid(); cursor->next()) {
        out += std::string(cursor->key()) + "=" + std::string(cursor->value()) + ";";
      }
      out += "|" + std::to_string(txn.entry_count(tree)) + "\n";
    }
    out += "bytes " + std::to_string(txn.state_bytes());
    return Status::OK();
  });
  return out;
}

inline std::unique_ptr<Database> open_dir(const Options& options) {
  auto db = Database::open(options);
  if (!db.ok()) FAIL("open: " << db.status().ToString());
  return std::move(*db);
}

// Table kv (k BIGINT primary key, v BIGINT) of the damage and database-id tests.
inline TableSchema kv_schema() {
  return TableSchema{"kv", {ColumnDef::BigInt("k", true), ColumnDef::BigInt("v", true)}, {0}};
}

// k -> v of table kv (the first table) in `db`'s newest snapshot.
inline std::map<int64_t, int64_t> kv_rows(Database& db) {
  std::map<int64_t, int64_t> rows;
  db.read([&](ReadTxn& txn) {
    auto cursor = txn.scan(0, KeyRange::All());
    REQUIRE(cursor.ok());
    for (; cursor->valid(); cursor->next()) {
      Row row;
      REQUIRE(decode_row(kv_schema(), cursor->value(), &row).ok());
      rows[row[0].as_int()] = row[1].as_int();
    }
    return Status::OK();
  });
  return rows;
}

}  // namespace solo::test
