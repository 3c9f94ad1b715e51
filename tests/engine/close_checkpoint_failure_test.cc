// Regression test: a checkpoint at close (Options::checkpoint_at_close_bytes)
// that could not be written failed silently and left its .tmp file behind.
// close() must return the IOError, remove the .tmp, and the next open must
// recover every commit from the log. A failed explicit checkpoint removes its
// .tmp too (the same write_checkpoint path).
//
// The write fails for real: a forked child runs the database under an
// RLIMIT_FSIZE that the log's small segments fit below (a write past the
// limit fails with EFBIG, wherever the file ends) but the checkpoint does not.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "durable_util.h"
#include "fault_file_system.h"

using namespace solo;

namespace {

constexpr int kTxns = 100;
constexpr int kRowsPerTxn = 20;
constexpr int kRows = kTxns * kRowsPerTxn;
// The child's file size limit: 4 log segments, a tenth of the checkpoint
// (kRows rows of ~300 bytes: ~600 KB).
constexpr rlim_t kFileSizeLimit = 256 * 1024;

TableSchema padded_schema() {
  return TableSchema{
      "padded", {ColumnDef::BigInt("id", true), ColumnDef::VarChar("pad", 400)}, {0}};
}

std::string pad_of(int64_t id) {
  return std::string(300, static_cast<char>('a' + id % 26));
}

Options limited_options(const std::string& dir) {
  Options options;
  options.check_invariants = true;
  options.dir = dir;
  options.log_segment_bytes = 64 * 1024;  // every log write lands below kFileSizeLimit
  options.log_segments = 2;
  options.checkpoint_log_bytes = 0;  // no checkpoint but the one at close
  options.checkpoint_at_close_bytes = 1;
  return options;
}

// The directory's file names that end in `suffix`.
std::vector<std::string> names_ending(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      found.push_back(name);
    }
  }
  return found;
}

// What the child saw, one item a line: the writes that returned OK, the
// first and second close()'s Status, and a write's after close.
struct ChildReport {
  int writes_ok = -1;
  std::string first_close;
  std::string second_close;
  std::string write_after_close;
};

// In the child (no Catch assertions there): opens `dir` under the file size
// limit, commits kRows rows, closes twice and writes once more; the report
// goes to `fd` as four lines.
[[noreturn]] void child_main(const std::string& dir, int fd) {
  signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG instead of killing
  struct rlimit limit;
  getrlimit(RLIMIT_FSIZE, &limit);
  limit.rlim_cur = kFileSizeLimit;
  std::string report;
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0) {
    report = std::string("setrlimit: ") + std::strerror(errno) + "\n";
  } else {
    auto opened = Database::open(limited_options(dir));
    if (!opened.ok()) {
      report = "open: " + opened.status().ToString() + "\n";
    } else {
      Database& db = **opened;
      int writes_ok = 0;
      if (db.write([&](WriteTxn& txn) {
              return txn.create_table(padded_schema()).status();
            }).ok()) {
        for (int txn_idx = 0; txn_idx < kTxns; ++txn_idx) {
          Status status = db.write([&](WriteTxn& txn) {
            for (int row_idx = 0; row_idx < kRowsPerTxn; ++row_idx) {
              const int64_t id = int64_t{txn_idx} * kRowsPerTxn + row_idx;
              Status inserted = txn.insert(0, {Value::Int(id), Value::String(pad_of(id))});
              if (!inserted.ok()) return inserted;
            }
            return Status::OK();
          });
          if (status.ok()) writes_ok++;
        }
      }
      report = std::to_string(writes_ok) + "\n";
      report += db.close().ToString() + "\n";
      report += db.close().ToString() + "\n";
      report += db.write([](WriteTxn&) { return Status::OK(); }).ToString() + "\n";
    }
  }
  const char* data = report.data();
  size_t left = report.size();
  while (left > 0) {
    ssize_t put = ::write(fd, data, left);
    if (put <= 0) break;
    data += put;
    left -= static_cast<size_t>(put);
  }
  ::close(fd);
  _exit(0);  // not exit(): the parent's Catch session must not run its atexit work here
}

ChildReport run_child(const std::string& dir) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    child_main(dir, fds[1]);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(fds[0], buffer, sizeof(buffer))) > 0)
    text.append(buffer, static_cast<size_t>(got));
  ::close(fds[0]);
  int wait_status = 0;
  REQUIRE(::waitpid(pid, &wait_status, 0) == pid);
  INFO("child's report: " << text);
  REQUIRE(WIFEXITED(wait_status));
  REQUIRE(WEXITSTATUS(wait_status) == 0);
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  REQUIRE(lines.size() == 4);
  ChildReport report;
  report.writes_ok = std::stoi(lines[0]);
  report.first_close = lines[1];
  report.second_close = lines[2];
  report.write_after_close = lines[3];
  return report;
}

}  // namespace

TEST_CASE(
    "a checkpoint at close that fails (EFBIG): close() says so, no .tmp stays, the log recovers "
    "all") {
  test::TempDir dir;
  ChildReport report = run_child(dir.path);

  // The log worked under the limit: every write was acknowledged (durable).
  REQUIRE(report.writes_ok == kTxns);
  // close() reports the checkpoint's failure: what, which file, and why.
  INFO("close(): " << report.first_close);
  CHECK(report.first_close.rfind("IOError: checkpoint at close: write " + dir.path + "/checkpoint-",
                                 0) == 0);
  CHECK(report.first_close.find(".tmp at offset") != std::string::npos);
  CHECK(report.first_close.find(std::strerror(EFBIG)) != std::string::npos);
  // Still closed, idempotently.
  CHECK(report.second_close == report.first_close);
  CHECK(report.write_after_close.rfind("Shutdown: ", 0) == 0);

  // The partly written checkpoint is gone, and none was completed.
  CHECK(names_ending(dir.path, ".tmp").empty());
  CHECK(names_ending(dir.path, ".ckpt").empty());

  // Without the limit the next open replays the log: every row is there.
  Options options = limited_options(dir.path);
  auto db = test::open_dir(options);
  const Stats stats = db->stats();
  CHECK(stats.recovered_checkpoint_bytes == 0);
  CHECK(stats.replayed_rounds >= static_cast<uint64_t>(kTxns));
  int rows = 0;
  int wrong = 0;
  REQUIRE(db->read([&](ReadTxn& txn) {
              auto cursor = txn.scan(0, KeyRange::All());
              if (!cursor.ok()) return cursor.status();
              for (; cursor->valid(); cursor->next()) {
                Row row;
                Status decoded = decode_row(padded_schema(), cursor->value(), &row);
                if (!decoded.ok()) return decoded;
                if (row[0].as_int() != rows || row[1].as_string() != pad_of(rows)) wrong++;
                rows++;
              }
              return Status::OK();
            }).ok());
  CHECK(rows == kRows);
  CHECK(wrong == 0);

  // With room, the checkpoint at close is written and close() says OK.
  REQUIRE(db->close().ok());
  CHECK(db->close().ok());
  CHECK(names_ending(dir.path, ".ckpt").size() == 1);
  CHECK(names_ending(dir.path, ".tmp").empty());
}

TEST_CASE("a failed explicit checkpoint (ENOSPC) removes its .tmp file too") {
  test::FaultFileSystem fs;
  const std::string dir = "/db";
  Options options = test::small_log_options(&fs, dir, 0);
  options.log_segment_bytes = 1 << 20;  // the one round fits in a segment
  options.checkpoint_at_close_bytes = 0;
  {
    auto db = test::open_dir(options);
    REQUIRE(db->write([&](WriteTxn& txn) {
                TableId table = *txn.create_table(padded_schema());
                for (int64_t id = 0; id < 400; ++id) {
                  Status inserted = txn.insert(table, {Value::Int(id), Value::String(pad_of(id))});
                  if (!inserted.ok()) return inserted;
                }
                return Status::OK();
              }).ok());
    fs.enospc_after_bytes(4096);  // the checkpoint takes ~120 KB
    Status status = db->checkpoint();
    INFO("checkpoint(): " << status.ToString());
    REQUIRE(status.IsIOError());
    CHECK(status.message().find(".tmp") != std::string::npos);
    CHECK(status.message().find("ENOSPC") != std::string::npos);
    CHECK(fs.enospc_refusals() > 0);
    std::vector<std::string> names;
    REQUIRE(fs.list(dir, &names).ok());
    for (const std::string& name : names) {
      INFO(name);
      CHECK(Database::file_kind(name) != Database::FileKind::kScratch);
    }
    // Nothing to write at close (checkpoint_at_close_bytes = 0), but the
    // failed checkpoint was fatal: close() reports it (it said OK before).
    Status closed = db->close();
    INFO("close(): " << closed.ToString());
    CHECK(closed.IsIOError());
    CHECK(closed.message().find("closed after an earlier failure") != std::string::npos);
    CHECK(closed.message().find("ENOSPC") != std::string::npos);
  }
  fs.enospc_after_bytes(-1);
  auto db = test::open_dir(options);
  int rows = 0;
  REQUIRE(db->read([&](ReadTxn& txn) {
              rows = static_cast<int>(txn.entry_count(0));
              return Status::OK();
            }).ok());
  CHECK(rows == 400);
}
