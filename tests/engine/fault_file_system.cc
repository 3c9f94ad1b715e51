#include "fault_file_system.h"

#include <algorithm>
#include <random>

namespace solo::test {

namespace {

class FaultFile final : public File {
 public:
  FaultFile(FaultFileSystem* fs, std::string path, std::shared_ptr<FaultFileSystem::Node> node)
      : fs_(fs), path_(std::move(path)), node_(std::move(node)) {}

  Status read_at(uint64_t offset, size_t size, char* out, size_t* read) override {
    std::lock_guard<std::mutex> lock(fs_->mutex());
    Status status = fs_->check_op(false, path_);
    if (!status.ok()) return status;
    *read = 0;
    if (offset >= node_->data.size()) return Status::OK();
    *read = std::min<size_t>(size, node_->data.size() - offset);
    std::copy_n(node_->data.data() + offset, *read, out);
    return Status::OK();
  }

  Status write_at(uint64_t offset, std::string_view data) override {
    fs_->maybe_hold(path_);
    std::lock_guard<std::mutex> lock(fs_->mutex());
    Status status = fs_->check_op(true, path_);
    if (status.ok()) status = fs_->note_write(path_, data.size());
    if (!status.ok()) return status;
    if (node_->data.size() < offset + data.size()) node_->data.resize(offset + data.size(), '\0');
    std::copy(data.begin(), data.end(), node_->data.begin() + static_cast<ptrdiff_t>(offset));
    node_->unsynced.push_back({offset, data.size(), fs_->next_write_seq()});
    return Status::OK();
  }

  Status sync() override {
    std::lock_guard<std::mutex> lock(fs_->mutex());
    Status status = fs_->check_op(true, path_);
    if (status.ok()) status = fs_->note_sync(path_);
    if (!status.ok()) return status;
    node_->durable = node_->data;
    node_->unsynced.clear();
    return Status::OK();
  }

  Status write_back(uint64_t offset, uint64_t size, bool wait) override {
    std::lock_guard<std::mutex> lock(fs_->mutex());
    if (offset + size > node_->data.size()) {
      return Status::Internal("write_back past the end of " + path_);  // a caller's bug
    }
    return fs_->note_write_back(path_, offset, size, wait);
  }

  // A cut that is not synced is lost in a crash (the file keeps its durable
  // length); unsynced writes past the cut are gone.
  Status truncate(uint64_t size) override {
    std::lock_guard<std::mutex> lock(fs_->mutex());
    Status status = fs_->check_op(true, path_);
    if (!status.ok()) return status;
    node_->data.resize(size, '\0');
    return Status::OK();
  }

  Result<uint64_t> size() override {
    std::lock_guard<std::mutex> lock(fs_->mutex());
    Status status = fs_->check_op(false, path_);
    if (!status.ok()) return status;
    return static_cast<uint64_t>(node_->data.size());
  }

  const std::string& path() const override { return path_; }

 private:
  FaultFileSystem* fs_;
  std::string path_;
  std::shared_ptr<FaultFileSystem::Node> node_;
};

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

Status FaultFileSystem::check_op(bool mutating, const std::string& path) {
  if (crashed_) return Status::IOError("crashed (fault injection): " + path);
  if (mutating) {
    if (crash_at_ >= 0 && ops_ >= crash_at_) {
      crashed_ = true;
      return Status::IOError("crashed (fault injection): " + path);
    }
    ops_++;
  } else {
    if (read_crash_at_ >= 0 && reads_ >= read_crash_at_) {
      crashed_ = true;
      return Status::IOError("crashed (fault injection): " + path);
    }
    reads_++;
  }
  return Status::OK();
}

uint64_t FaultFileSystem::free_bytes(const std::string& dir) {
  (void)dir;
  std::lock_guard<std::mutex> lock(mutex_);
  return byte_budget_ >= 0 ? static_cast<uint64_t>(byte_budget_) : UINT64_MAX;
}

Status FaultFileSystem::note_write(const std::string& path, uint64_t bytes) {
  written_ += static_cast<int64_t>(bytes);
  if (byte_budget_ >= 0) {
    if (static_cast<int64_t>(bytes) > byte_budget_) {
      enospc_refusals_++;
      return Status::IOError("write " + path + ": ENOSPC: No space left on device (fault injection)");
    }
    byte_budget_ -= static_cast<int64_t>(bytes);
  }
  return Status::OK();
}

Status FaultFileSystem::note_sync(const std::string& path) {
  if (sync_budget_ == 0) {
    sync_budget_ = -1;
    return Status::IOError("fdatasync " + path + ": Input/output error (fault injection)");
  }
  if (sync_budget_ > 0) sync_budget_--;
  return Status::OK();
}

Status FaultFileSystem::note_write_back(const std::string& path, uint64_t offset, uint64_t size,
                                        bool wait) {
  // Neither a mutating nor a reading operation: it adds no crash point.
  if (crashed_) return Status::IOError("crashed (fault injection): " + path);
  if (write_back_budget_ == 0) {
    write_back_budget_ = -1;
    return Status::IOError("sync_file_range " + path + ": Input/output error (fault injection)");
  }
  if (write_back_budget_ > 0) write_back_budget_--;
  write_backs_.push_back(WriteBack{path, offset, size, wait});
  return Status::OK();
}

Result<std::unique_ptr<File>> FaultFileSystem::open(const std::string& path, OpenMode mode) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status status = check_op(mode == OpenMode::kCreate, path);
  if (!status.ok()) return status;
  std::shared_ptr<Node> node;
  if (mode == OpenMode::kCreate) {
    node = std::make_shared<Node>();
    names_[path] = node;
  } else {
    auto found = names_.find(path);
    if (found == names_.end()) return Status::NotFound("no file " + path);
    node = found->second;
  }
  return std::unique_ptr<File>(new FaultFile(this, path, node));
}

Status FaultFileSystem::list(const std::string& dir, std::vector<std::string>* names) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status status = check_op(false, dir);
  if (!status.ok()) return status;
  names->clear();
  for (const auto& entry : names_) {
    if (parent_of(entry.first) == dir) names->push_back(entry.first.substr(dir.size() + 1));
  }
  return Status::OK();
}

Status FaultFileSystem::rename(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status status = check_op(true, from);
  if (!status.ok()) return status;
  auto found = names_.find(from);
  if (found == names_.end()) return Status::IOError("rename: no file " + from);
  names_[to] = found->second;
  names_.erase(from);
  return Status::OK();
}

Status FaultFileSystem::remove(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status status = check_op(true, path);
  if (!status.ok()) return status;
  if (names_.erase(path) == 0) return Status::IOError("unlink: no file " + path);
  return Status::OK();
}

Status FaultFileSystem::sync_dir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status status = check_op(true, dir);
  if (status.ok()) status = note_sync(dir);
  if (!status.ok()) return status;
  for (auto it = durable_names_.begin(); it != durable_names_.end();) {
    it = parent_of(it->first) == dir ? durable_names_.erase(it) : std::next(it);
  }
  for (const auto& entry : names_) {
    if (parent_of(entry.first) == dir) durable_names_[entry.first] = entry.second;
  }
  return Status::OK();
}

Status FaultFileSystem::create_dir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  return check_op(false, dir);
}

void FaultFileSystem::fail_sync_after(int64_t syncs) {
  std::lock_guard<std::mutex> lock(mutex_);
  sync_budget_ = syncs;
}

void FaultFileSystem::fail_write_back_after(int64_t calls) {
  std::lock_guard<std::mutex> lock(mutex_);
  write_back_budget_ = calls;
}

std::vector<FaultFileSystem::WriteBack> FaultFileSystem::write_backs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return write_backs_;
}

void FaultFileSystem::enospc_after_bytes(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  byte_budget_ = bytes;
}

void FaultFileSystem::crash_after_ops(int64_t ops) {
  std::lock_guard<std::mutex> lock(mutex_);
  crash_at_ = ops < 0 ? -1 : ops_ + ops;
}

void FaultFileSystem::crash_after_reads(int64_t reads) {
  std::lock_guard<std::mutex> lock(mutex_);
  read_crash_at_ = reads < 0 ? -1 : reads_ + reads;
}

int64_t FaultFileSystem::reads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reads_;
}

void FaultFileSystem::hold_writes_to(const std::string& part) {
  std::lock_guard<std::mutex> lock(hold_mutex_);
  hold_part_ = part;
}

void FaultFileSystem::release_writes() {
  {
    std::lock_guard<std::mutex> lock(hold_mutex_);
    hold_part_.clear();
  }
  hold_cv_.notify_all();
}

int FaultFileSystem::held_writes() const {
  std::lock_guard<std::mutex> lock(hold_mutex_);
  return held_;
}

void FaultFileSystem::maybe_hold(const std::string& path) {
  std::unique_lock<std::mutex> lock(hold_mutex_);
  if (hold_part_.empty() || path.find(hold_part_) == std::string::npos) return;
  held_++;
  hold_cv_.wait(lock, [&] { return hold_part_.empty(); });
  held_--;
}

int64_t FaultFileSystem::bytes_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return written_;
}

int64_t FaultFileSystem::enospc_refusals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return enospc_refusals_;
}

bool FaultFileSystem::crashed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return crashed_;
}

int64_t FaultFileSystem::mutating_ops() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ops_;
}

void FaultFileSystem::crash(CrashMode mode, uint32_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::mt19937 random(seed);
  // The last unsynced write of all (the one a tear cuts).
  uint64_t last_seq = 0;
  for (const auto& entry : durable_names_) {
    for (const Node::Write& write : entry.second->unsynced) last_seq = std::max(last_seq, write.seq);
  }
  std::map<std::string, std::shared_ptr<Node>> after;
  std::map<const Node*, std::shared_ptr<Node>> made;  // a node may have two names
  for (const auto& entry : durable_names_) {
    const Node& node = *entry.second;
    auto& image = made[&node];
    if (!image) {
      image = std::make_shared<Node>();
      std::string data = node.durable;
      auto apply = [&](uint64_t offset, uint64_t size) {
        if (data.size() < offset + size) data.resize(offset + size, '\0');
        std::copy_n(node.data.data() + offset, size, data.begin() + static_cast<ptrdiff_t>(offset));
      };
      for (const Node::Write& write : node.unsynced) {
        if (write.offset + write.size > node.data.size()) continue;  // truncated since
        switch (mode) {
          case CrashMode::kDropUnsynced: break;
          case CrashMode::kKeepUnsynced: apply(write.offset, write.size); break;
          case CrashMode::kTearLastWrite512:
          case CrashMode::kTearLastWrite4K: {
            if (write.seq != last_seq) {
              apply(write.offset, write.size);
              break;
            }
            uint64_t block = mode == CrashMode::kTearLastWrite512 ? 512 : 4096;
            // Cut at a random block boundary inside the write (or keep nothing).
            std::vector<uint64_t> cuts{write.offset};
            for (uint64_t cut = (write.offset / block + 1) * block; cut < write.offset + write.size;
                 cut += block) {
              cuts.push_back(cut);
            }
            uint64_t cut = cuts[random() % cuts.size()];
            apply(write.offset, cut - write.offset);
            break;
          }
          case CrashMode::kGarbageUnsynced: {
            uint64_t first = write.offset / 512 * 512;
            uint64_t end = std::min<uint64_t>((write.offset + write.size + 511) / 512 * 512,
                                              std::max(node.data.size(), node.durable.size()));
            if (data.size() < end) data.resize(end, '\0');
            for (uint64_t pos = first; pos < end; ++pos) data[pos] = static_cast<char>(random());
            break;
          }
        }
      }
      image->data = data;
      image->durable = data;
    }
    after[entry.first] = image;
  }
  names_ = after;
  durable_names_ = after;
  sync_budget_ = -1;
  write_back_budget_ = -1;
  byte_budget_ = -1;
  crash_at_ = -1;
  read_crash_at_ = -1;
  crashed_ = false;
}

std::vector<std::string> FaultFileSystem::paths() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& entry : names_) out.push_back(entry.first);
  return out;
}

std::string FaultFileSystem::contents(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = names_.find(path);
  return found == names_.end() ? std::string() : found->second->data;
}

void FaultFileSystem::corrupt(const std::string& path, uint64_t offset, std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = names_.find(path);
  if (found == names_.end()) return;
  Node& node = *found->second;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    if (offset + pos < node.data.size()) node.data[offset + pos] = bytes[pos];
    if (offset + pos < node.durable.size()) node.durable[offset + pos] = bytes[pos];
  }
}

}  // namespace solo::test
