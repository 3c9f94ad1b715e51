#include "checkpoint_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "checkpoint_format.h"
#include "clock.h"
#include "crc32c.h"
#include "durable_codec.h"
#include "invariant.h"
#include "node.h"
#include "record.h"
#include "tree.h"
#include "writeback_pacer.h"

namespace solo::internal {

const char kCheckpointSpareName[] = "checkpoint.spare";

std::string checkpoint_name(uint64_t lsn) {
  char name[48];
  std::snprintf(name, sizeof(name), "checkpoint-%020llu.ckpt", static_cast<unsigned long long>(lsn));
  return name;
}

std::string checkpoint_temp_name(uint64_t lsn) {
  char name[48];
  std::snprintf(name, sizeof(name), "checkpoint-%020llu.tmp", static_cast<unsigned long long>(lsn));
  return name;
}

static bool parse_checkpoint_with(const std::string& name, const char* suffix, uint64_t* lsn) {
  if (name.size() != 11 + 20 + std::strlen(suffix) || name.compare(0, 11, "checkpoint-") != 0 ||
      name.compare(31, std::string::npos, suffix) != 0) {
    return false;
  }
  uint64_t value = 0;
  for (size_t pos = 11; pos < 31; ++pos) {
    if (name[pos] < '0' || name[pos] > '9') return false;
    value = value * 10 + static_cast<uint64_t>(name[pos] - '0');
  }
  *lsn = value;
  return true;
}

bool parse_checkpoint_name(const std::string& name, uint64_t* lsn) {
  return parse_checkpoint_with(name, ".ckpt", lsn);
}

bool is_checkpoint_temp_name(const std::string& name) {
  uint64_t lsn;
  return parse_checkpoint_with(name, ".tmp", &lsn);
}

namespace {

// The leaves of a tree in key order, found from the path to the previous one.
class LeafWalk {
 public:
  explicit LeafWalk(const TreeState& tree)
      : root_(tree.root), height_(static_cast<int>(tree.height)) {}
  const Node* first() {
    if (root_ == nullptr) return nullptr;
    if (height_ == 1) return root_;
    node_[0] = root_;
    idx_[0] = 0;
    return descend(0);
  }
  // The leaf after the last one returned; nullptr after the last.
  const Node* next() {
    for (int level = height_ - 2; level >= 0; --level) {
      if (++idx_[level] < node_[level]->count_) return descend(level);
    }
    return nullptr;
  }

 private:
  // The leftmost leaf under child idx_[level] of node_[level].
  const Node* descend(int level) {
    const Node* node = node_[level]->child(idx_[level]);
    for (++level; level < height_ - 1; ++level) {
      node_[level] = node;
      idx_[level] = 0;
      node = node->child(0);
    }
    return node;
  }

  const Node* root_;
  int height_;
  const Node* node_[kMaxTreeHeight];
  int idx_[kMaxTreeHeight];
};

// Starts loading a node's heads, pointers and lengths, and its key offsets
// (without reading it: its class is not known yet).
void prefetch_node(const Node* node) {
  const char* base = reinterpret_cast<const char*>(node);
  for (int line = 0; line < 10; ++line) __builtin_prefetch(base + line * 64);
}

// Calls fn(key, row) for every row of a table's tree in key order. A
// checkpoint reads the whole state once, and its time went to waiting for
// the records: the walk asks for the next leaf a leaf ahead and for the
// records kRecordsAhead entries ahead, across leaf ends (a Cursor, made for
// short scans, asked for two).
template <typename Fn>
Status walk_rows(const TreeState& tree, Fn&& fn) {
  constexpr int kRecordsAhead = 8;
  SOLO_ASSERT(tree.has_records);
  LeafWalk walk(tree);
  const Node* leaf = walk.first();
  if (leaf == nullptr) return Status::OK();
  const Node* next = walk.next();
  if (next != nullptr) prefetch_node(next);
  for (int idx = 0; idx < kRecordsAhead && idx < leaf->count_; ++idx) {
    __builtin_prefetch(leaf->ptr_[idx]);
  }
  while (leaf != nullptr) {
    const Node* after = next != nullptr ? walk.next() : nullptr;
    if (after != nullptr) prefetch_node(after);
    const int count = leaf->count_;
    for (int idx = 0; idx < count; ++idx) {
      const int ahead = idx + kRecordsAhead;
      if (ahead < count) {
        __builtin_prefetch(leaf->ptr_[ahead]);
      } else if (next != nullptr && ahead - count < next->count_) {
        __builtin_prefetch(next->ptr_[ahead - count]);
      }
      const auto* record = static_cast<const Record*>(leaf->ptr_[idx]);
      Status status = fn(leaf->key(idx), record->view());
      if (!status.ok()) return status;
    }
    leaf = next;
    next = after;
  }
  return Status::OK();
}

// Appends blocks to a buffer and writes it out in large pieces.
class BlockWriter {
 public:
  BlockWriter(File* file, uint64_t writeback_bytes) : file_(file), pacer_(file, writeback_bytes) {}

  // Starts a block of `type`; the body follows through body().
  void begin(CheckpointBlock type) {
    block_start_ = buffer_.size();
    buffer_.append(kBlockHeaderBytes, '\0');
    buffer_.push_back(static_cast<char>(type));
  }
  std::string* body() { return &buffer_; }
  size_t body_bytes() const { return buffer_.size() - block_start_ - kBlockHeaderBytes; }
  Status end() {
    char* block = buffer_.data() + block_start_;
    uint32_t length = static_cast<uint32_t>(buffer_.size() - block_start_ - kBlockHeaderBytes);
    store_u32(block + 4, length);
    store_u32(block, crc32c_extend(0, block + 4, 4 + length));
    blocks_++;
    if (buffer_.size() >= (1u << 20)) return flush();
    return Status::OK();
  }
  Status flush() {
    if (buffer_.empty()) return Status::OK();
    Status status = file_->write_at(offset_, buffer_);
    offset_ += buffer_.size();
    buffer_.clear();
    if (!status.ok()) return status;
    return pacer_.wrote_up_to(offset_);
  }
  uint64_t blocks() const { return blocks_; }
  uint64_t offset() const { return offset_ + buffer_.size(); }
  uint64_t wait_ns() const { return pacer_.wait_ns(); }

 private:
  File* file_;
  WritebackPacer pacer_;
  std::string buffer_;
  size_t block_start_ = 0;
  uint64_t offset_ = 0;
  uint64_t blocks_ = 0;
};

}  // namespace

// write_checkpoint up to the rename of temp_path to final_path: on failure
// temp_path may be left behind, partly written.
static Status write_and_rename(FileSystem* fs, const std::string& dir, const RootSet& roots,
                               uint64_t db_id, uint64_t writeback_bytes, CheckpointInfo* info,
                               const std::function<void(TreeId)>& done_with_tree, bool reuse_spare,
                               const std::string& temp_path, const std::string& final_path) {
  auto done = [&](TreeId id) {
    if (done_with_tree) done_with_tree(id);
  };
  // Last round included: RootSet::lsn.
  const uint64_t lsn = roots.lsn;
  // The spare's old contents are overwritten from the start; the rename
  // needs no directory sync: after a crash the file is a .tmp (removed by
  // recovery) or the spare again, and nothing reads either.
  bool reused = false;
  if (reuse_spare) {
    std::vector<std::string> names;
    Status listed = fs->list(dir, &names);
    if (!listed.ok()) return listed;
    if (std::find(names.begin(), names.end(), kCheckpointSpareName) != names.end()) {
      Status renamed = fs->rename(dir + "/" + kCheckpointSpareName, temp_path);
      if (!renamed.ok()) return renamed;
      reused = true;
    }
  }
  auto opened = fs->open(temp_path, reused ? OpenMode::kReadWrite : OpenMode::kCreate);
  if (!opened.ok()) return opened.status();
  File* file = opened->get();
  uint64_t old_size = 0;
  if (reused) {
    auto size = file->size();
    if (!size.ok()) return size.status();
    old_size = *size;
  }
  BlockWriter writer(file, writeback_bytes);

  std::string* out = writer.body();
  out->append(kCheckpointHeaderBytes, '\0');
  char* header = out->data();
  std::memcpy(header + kCkpMagicOff, kCheckpointMagic, 8);
  store_u32(header + kCkpVersionOff, kCheckpointVersion);
  store_u32(header + kCkpHeaderSizeOff, kCheckpointHeaderBytes);
  store_u64(header + kCkpLsnOff, lsn);
  store_u64(header + kCkpGenOff, roots.gen);
  store_u32(header + kCkpTreesOff, roots.tree_count);
  SOLO_ASSERT(db_id != 0);
  store_u64(header + kCkpDbIdOff, db_id);
  store_u32(header + kCkpCrcOff, crc32c_extend(0, header, kCkpCrcOff));

  const Catalog& catalog = *roots.catalog;
  Status status;
  for (TreeId id = 0; id < catalog.tree_count(); ++id) {
    if (const TableInfo* table = catalog.table(id)) {
      writer.begin(CheckpointBlock::kTable);
      put_u32(out, id);
      put_table_schema(out, table->schema);
    } else if (const IndexInfo* index = catalog.index(id)) {
      writer.begin(CheckpointBlock::kIndex);
      put_u32(out, id);
      put_index_schema(out, index->schema);
    } else {
      writer.begin(CheckpointBlock::kDropped);
      put_u32(out, id);
    }
    status = writer.end();
    if (!status.ok()) return status;
    if (catalog.table(id) == nullptr) done(id);  // an index or a dropped tree: never read
  }

  // Smallest table first: the rows that transactions replace while a table
  // waits for its turn stay in memory until it is written (done_with_tree),
  // so the large, mostly appended tables (TPC-C's order_line) come last and
  // the small, often updated ones (stock, customer) are released early.
  std::vector<const TableInfo*> tables = catalog.tables();
  std::stable_sort(tables.begin(), tables.end(), [&](const TableInfo* a, const TableInfo* b) {
    return roots.trees()[a->id].bytes < roots.trees()[b->id].bytes;
  });
  uint64_t rows = 0;
  // One table's rows in blocks of about kRowsBlockBytes.
  auto write_rows = [&](const TableInfo* table) -> Status {
    size_t count_at = 0;
    uint32_t count = 0;
    auto end_block = [&]() -> Status {
      store_u32(out->data() + count_at, count);
      rows += count;
      count = 0;
      return writer.end();
    };
    Status walked = walk_rows(roots.trees()[table->id], [&](std::string_view key,
                                                             std::string_view row) -> Status {
      if (count == 0) {
        writer.begin(CheckpointBlock::kRows);
        put_u32(out, table->id);
        count_at = out->size();
        put_u32(out, 0);
      }
      put_bytes(out, key);
      put_bytes(out, row);
      count++;
      return writer.body_bytes() < kRowsBlockBytes ? Status::OK() : end_block();
    });
    if (!walked.ok()) return walked;
    return count > 0 ? end_block() : Status::OK();
  };
  for (const TableInfo* table : tables) {
    status = write_rows(table);
    if (!status.ok()) return status;
    done(table->id);
  }
  uint64_t blocks = writer.blocks();
  writer.begin(CheckpointBlock::kEnd);
  put_u64(out, blocks);
  put_u64(out, rows);
  put_u64(out, lsn);
  status = writer.end();
  if (status.ok()) status = writer.flush();
  // What is left of the spare's old contents goes (readers also stop at
  // the end block, but a checkpoint file is exactly its blocks).
  if (status.ok() && old_size > writer.offset()) status = file->truncate(writer.offset());
  if (status.ok()) {
    const uint64_t sync_start = now_ns();
    status = file->sync();
    info->sync_ns += now_ns() - sync_start;
  }
  info->lsn = lsn;
  info->rows = rows;
  info->bytes = writer.offset();
  info->writeback_wait_ns = writer.wait_ns();
  opened->reset();
  if (status.ok()) status = fs->rename(temp_path, final_path);
  return status;
}

Status write_checkpoint(FileSystem* fs, const std::string& dir, const RootSet& roots,
                        uint64_t db_id, uint64_t writeback_bytes, CheckpointInfo* info,
                        const std::function<void(TreeId)>& done_with_tree, bool reuse_spare) {
  const std::string temp_path = dir + "/" + checkpoint_temp_name(roots.lsn);
  const std::string final_path = dir + "/" + checkpoint_name(roots.lsn);
  Status status = write_and_rename(fs, dir, roots, db_id, writeback_bytes, info, done_with_tree,
                                   reuse_spare, temp_path, final_path);
  if (!status.ok()) {
    // Recovery would remove it too, but only at the next open: until then a
    // failed write (ENOSPC, EFBIG) would leave the space it took taken. If
    // the file was never made, the removal fails harmlessly.
    (void)fs->remove(temp_path);
    return status;
  }
  return fs->sync_dir(dir);
}

}  // namespace solo::internal
