#include "tpcc/durability.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>
#include <unordered_set>

#include <fmt/format.h>

#include "tpcc/schema.h"
#include "tpcc/transactions.h"

namespace tpcc {

SuccessFile::SuccessFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw BackendError(fmt::format("cannot open the success file {}: {}", path, std::strerror(errno)));
  }
}

SuccessFile::~SuccessFile() {
  if (fd_ >= 0) ::close(fd_);
}

void SuccessFile::new_order(int32_t w_id, int32_t d_id, int32_t o_id) {
  char line[64];
  const int size = std::snprintf(line, sizeof line, "NO %d %d %d\n", w_id, d_id, o_id);
  const ssize_t wrote = ::write(fd_, line, static_cast<size_t>(size));
  if (wrote != size) {
    throw BackendError(fmt::format("cannot write the success file {}: {}", path_,
                                   wrote < 0 ? std::strerror(errno) : "short write"));
  }
}

namespace {

uint64_t order_key(int64_t w_id, int64_t d_id, int64_t o_id) {
  return (static_cast<uint64_t>(w_id) << 40) | (static_cast<uint64_t>(d_id) << 32) |
         static_cast<uint64_t>(o_id);
}

}  // namespace

DurabilityResult check_durability(Connection& conn, int warehouses, const std::string& path) {
  std::ifstream file(path);
  if (!file) throw BackendError(fmt::format("cannot read the success file {}", path));
  std::vector<uint64_t> acknowledged;
  std::string line;
  for (int line_no = 1; std::getline(file, line); ++line_no) {
    std::istringstream fields(line);
    std::string tag;
    int64_t w_id = 0, d_id = 0, o_id = 0;
    std::string rest;
    if (!(fields >> tag >> w_id >> d_id >> o_id) || tag != "NO" || (fields >> rest) ||
        w_id < 1 || w_id > warehouses || d_id < 1 || d_id > kDistrictsPerWarehouse || o_id < 1) {
      throw BackendError(fmt::format("{}:{}: not a New-Order line \"NO w d o_id\" of this database: '{}'",
                                     path, line_no, line));
    }
    acknowledged.push_back(order_key(w_id, d_id, o_id));
  }

  DurabilityResult result;
  result.acknowledged = acknowledged.size();
  StmtId orders = conn.prepare("SELECT o_w_id, o_d_id, o_id FROM orders WHERE o_id > ?");
  StmtId unused = conn.prepare("SELECT COUNT(*) FROM order_line WHERE ol_i_id = ?");
  StmtId next_ids = conn.prepare("SELECT SUM(d_next_o_id) FROM district");
  std::unordered_set<uint64_t> present;
  int64_t next_sum = 0;
  conn.read([&](Txn& txn) {
    Rows rows;
    txn.exec(orders, {integer(kOrdersPerDistrict)}, &rows);
    present.reserve(rows.size());
    for (size_t row = 0; row < rows.size(); ++row) {
      present.insert(order_key(rows.get_int(row, 0), rows.get_int(row, 1), rows.get_int(row, 2)));
    }
    txn.exec(unused, {integer(kUnusedItemId)}, &rows);
    result.rolled_back_lines = static_cast<uint64_t>(rows.get_int(0, 0));
    txn.exec(next_ids, {}, &rows);
    next_sum = rows.get_int(0, 0);
    return Outcome::kCommit;
  });
  uint64_t first_missing = 0;
  for (uint64_t key : acknowledged) {
    if (present.count(key) == 0) {
      if (result.missing++ == 0) first_missing = key;
    }
  }
  const int64_t after_load = static_cast<int64_t>(warehouses) * kDistrictsPerWarehouse *
                             (kOrdersPerDistrict + 1);
  result.next_o_id_growth = next_sum - after_load;
  result.ok = result.missing == 0 && result.rolled_back_lines == 0 &&
              result.next_o_id_growth >= static_cast<int64_t>(result.acknowledged);
  if (result.missing > 0) {
    result.detail = fmt::format("{} of {} acknowledged New-Orders lost, first (w={}, d={}, o_id={})",
                                result.missing, result.acknowledged, first_missing >> 40,
                                (first_missing >> 32) & 0xff, first_missing & 0xffffffffu);
  } else if (result.rolled_back_lines > 0) {
    result.detail = fmt::format("{} ORDER-LINE rows of the unused item: a rolled-back New-Order is present",
                                result.rolled_back_lines);
  } else if (!result.ok) {
    result.detail = fmt::format("sum(D_NEXT_O_ID) grew by {}, less than the {} acknowledged New-Orders",
                                result.next_o_id_growth, result.acknowledged);
  } else {
    result.detail = fmt::format(
        "all {} acknowledged New-Orders present, no rolled-back one, sum(D_NEXT_O_ID) grew by {}",
        result.acknowledged, result.next_o_id_growth);
  }
  return result;
}

}  // namespace tpcc
