// Recovery: checkpoint load and log replay through WriteTxn, so that indexes,
// catalog versions and counters are rebuilt by the code that keeps them in
// step during normal operation.
#include "recovery.h"

#include <vector>

#include "checkpoint_format.h"
#include "checkpoint_reader.h"
#include "db_impl.h"
#include "durable_codec.h"
#include "log_format.h"
#include "log_reader.h"

namespace solo::internal {

namespace {

std::string at(const std::string& file, uint64_t offset) {
  return file + " at offset " + std::to_string(offset);
}

Status check_id(Result<TreeId> made, TreeId expected, const std::string& where) {
  if (!made.ok()) return Status::Corruption("cannot redo DDL from " + where + ": " + made.status().ToString());
  if (*made != expected) {
    return Status::Corruption("DDL from " + where + " made tree " + std::to_string(*made) +
                              ", expected " + std::to_string(expected));
  }
  return Status::OK();
}

// A dropped table or index keeps its id: a placeholder table is made and dropped.
Status make_dropped(WriteTxn& txn, TreeId id, const std::string& where) {
  TableSchema placeholder;
  placeholder.name = "\x01solo_dropped_" + std::to_string(id);
  placeholder.columns = {ColumnDef::BigInt("k", true)};
  placeholder.primary_key = {0};
  Result<TableId> made = txn.create_table(placeholder);
  Status status = check_id(made, id, where);
  if (!status.ok()) return status;
  return txn.drop_table(id);
}

// Applies one round's entries (a frame payload).
Status apply_round(WriteTxn& txn, std::string_view payload, const std::string& where) {
  ByteReader in{payload};
  Status status;
  while (!in.at_end()) {
    uint8_t type;
    uint32_t tree;
    if (!in.get_u8(&type)) break;
    if (type == static_cast<uint8_t>(LogEntry::kPadding)) break;  // zeros up to a sector end
    if (!in.get_u32(&tree)) break;
    switch (static_cast<LogEntry>(type)) {
      case LogEntry::kPut: {
        std::string_view key, row;
        if (!in.get_bytes(&key) || !in.get_bytes(&row)) break;
        // Most puts replace a row: try that first (one descent) rather than
        // a get and then an update (two).
        status = txn.update_encoded(tree, key, row);
        if (status.IsNotFound()) status = txn.insert_encoded(tree, row);
        break;
      }
      case LogEntry::kDelete: {
        std::string_view key;
        if (!in.get_bytes(&key)) break;
        status = txn.erase(tree, key);
        break;
      }
      case LogEntry::kCreateTable: {
        TableSchema schema;
        if (!get_table_schema(&in, &schema)) break;
        status = check_id(txn.create_table(schema), tree, where);
        break;
      }
      case LogEntry::kCreateIndex: {
        IndexSchema schema;
        if (!get_index_schema(&in, &schema)) break;
        status = check_id(txn.create_index(schema), tree, where);
        break;
      }
      case LogEntry::kDropIndex: status = txn.drop_index(tree); break;
      case LogEntry::kDropTable: status = txn.drop_table(tree); break;
      default: in.failed = true; break;
    }
    if (in.failed) return Status::Corruption("malformed log record in " + where);
    if (!status.ok()) {
      return Status::Corruption("log record in " + where + " does not apply: " + status.ToString());
    }
  }
  if (in.failed) return Status::Corruption("malformed log record in " + where);
  return Status::OK();
}

// Rounds are applied a batch at a time (one write transaction each).
struct ReplayBatch {
  struct Round {
    uint64_t lsn;
    size_t begin, end;  // in payloads
    std::string where;
  };
  std::vector<Round> rounds;
  std::string payloads;
};

Status flush_batch(DbImpl* db, ReplayBatch* batch) {
  if (batch->rounds.empty()) return Status::OK();
  Status status = db->write([&](WriteTxn& txn) {
    for (const ReplayBatch::Round& round : batch->rounds) {
      Status applied = apply_round(
          txn, std::string_view(batch->payloads).substr(round.begin, round.end - round.begin),
          round.where);
      if (!applied.ok()) return applied;
    }
    db->note_replayed_lsn(batch->rounds.back().lsn);
    return Status::OK();
  });
  batch->rounds.clear();
  batch->payloads.clear();
  return status;
}

Status load_checkpoint(DbImpl* db, FileSystem* fs, const std::string& path, uint64_t* lsn) {
  // Catalog blocks come first: they are applied together, before the rows.
  struct Entry {
    CheckpointBlock type;
    TreeId id;
    TableSchema table;
    IndexSchema index;
    uint64_t offset;
  };
  std::vector<Entry> entries;
  bool catalog_done = false;
  auto apply_catalog = [&]() -> Status {
    catalog_done = true;
    return db->write([&](WriteTxn& txn) {
      for (const Entry& entry : entries) {
        std::string where = "checkpoint " + at(path, entry.offset);
        Status status;
        if (entry.type == CheckpointBlock::kTable) {
          status = check_id(txn.create_table(entry.table), entry.id, where);
        } else if (entry.type == CheckpointBlock::kIndex) {
          status = check_id(txn.create_index(entry.index), entry.id, where);
        } else {
          status = make_dropped(txn, entry.id, where);
        }
        if (!status.ok()) return status;
      }
      db->note_replayed_lsn(*lsn);
      return Status::OK();
    });
  };
  Status status = read_checkpoint(
      fs, path, lsn, [&](CheckpointBlock type, std::string_view body, uint64_t offset) -> Status {
        ByteReader in{body};
        std::string where = "checkpoint " + at(path, offset);
        if (type != CheckpointBlock::kRows) {
          if (catalog_done) return Status::Corruption("catalog block after rows in " + where);
          Entry entry{type, 0, {}, {}, offset};
          bool ok = in.get_u32(&entry.id);
          if (ok && type == CheckpointBlock::kTable) ok = get_table_schema(&in, &entry.table);
          if (ok && type == CheckpointBlock::kIndex) ok = get_index_schema(&in, &entry.index);
          if (!ok || entry.id != entries.size()) {
            return Status::Corruption("malformed catalog block in " + where);
          }
          entries.push_back(std::move(entry));
          return Status::OK();
        }
        if (!catalog_done) {
          Status made = apply_catalog();
          if (!made.ok()) return made;
        }
        uint32_t table, count;
        if (!in.get_u32(&table) || !in.get_u32(&count)) {
          return Status::Corruption("malformed rows block in " + where);
        }
        return db->write([&](WriteTxn& txn) {
          for (uint32_t row_idx = 0; row_idx < count; ++row_idx) {
            std::string_view key, row;
            if (!in.get_bytes(&key) || !in.get_bytes(&row)) {
              return Status::Corruption("malformed rows block in " + where);
            }
            Status inserted = txn.insert_encoded(table, row);
            if (!inserted.ok()) {
              return Status::Corruption("row in " + where + " does not load: " + inserted.ToString());
            }
          }
          return Status::OK();
        });
      });
  if (!status.ok()) return status;
  if (!catalog_done) return apply_catalog();
  return Status::OK();
}

}  // namespace

Status recover(DbImpl* db, FileSystem* fs, const std::string& dir, LogState* state) {
  std::vector<std::string> names;
  Status status = fs->list(dir, &names);
  if (!status.ok()) return status;
  uint64_t newest = 0;
  bool found = false;
  for (const std::string& name : names) {
    uint64_t lsn;
    if (parse_checkpoint_name(name, &lsn)) {
      if (!found || lsn > newest) newest = lsn;
      found = true;
    } else if (is_checkpoint_temp_name(name)) {
      // An unfinished checkpoint (never renamed): nothing depends on it.
      status = fs->remove(dir + "/" + name);
      if (!status.ok()) return status;
    }
  }
  uint64_t checkpoint_lsn = 0;
  uint64_t checkpoint_bytes = 0;
  if (found) {
    status = load_checkpoint(db, fs, dir + "/" + checkpoint_name(newest), &checkpoint_lsn);
    if (!status.ok()) return status;
    if (checkpoint_lsn != newest) {
      return Status::Corruption("checkpoint " + dir + "/" + checkpoint_name(newest) +
                                " at offset 16 holds round " + std::to_string(checkpoint_lsn));
    }
    // Its size sets the next checkpoint's trigger (LogWriter::checkpoint_trigger_bytes).
    auto file = fs->open(dir + "/" + checkpoint_name(newest), OpenMode::kRead);
    if (!file.ok()) return file.status();
    auto size = (*file)->size();
    if (!size.ok()) return size.status();
    checkpoint_bytes = *size;
  }
  ReplayBatch batch;
  uint64_t replayed_rounds = 0;
  uint64_t replayed_bytes = 0;
  status = read_log(
      fs, dir, checkpoint_lsn,
      [&](uint64_t lsn, std::string_view payload, const std::string& file, uint64_t offset) {
        replayed_rounds++;
        replayed_bytes += payload.size();
        size_t begin = batch.payloads.size();
        batch.payloads.append(payload);
        batch.rounds.push_back(ReplayBatch::Round{lsn, begin, batch.payloads.size(), at(file, offset)});
        if (batch.rounds.size() >= 256 || batch.payloads.size() >= (4u << 20)) {
          return flush_batch(db, &batch);
        }
        return Status::OK();
      },
      state);
  if (!status.ok()) return status;
  state->checkpoint_bytes = checkpoint_bytes;
  state->replayed_rounds = replayed_rounds;
  state->replayed_bytes = replayed_bytes;
  return flush_batch(db, &batch);
}

}  // namespace solo::internal
