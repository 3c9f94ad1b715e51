// Helpers shared by the engine tests.
#pragma once

#include <sched.h>
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "solo/codec.h"
#include "solo/database.h"

namespace solo::test {

// The scheduling policy and nice value of this process's thread named `name`
// (false if there is none).
inline bool thread_priority(const std::string& name, int* policy, int* nice) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string comm_name;
    std::getline(comm, comm_name);
    if (comm_name != name) continue;
    const auto tid = static_cast<pid_t>(std::stol(task.path().filename().string()));
    *policy = sched_getscheduler(tid);
    errno = 0;
    *nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
    return errno == 0;
  }
  return false;
}

// Checks that the thread named `name` runs in the SCHED_IDLE class if
// `sched_idle`, else in the normal class at `nice`.
inline void require_thread_class(const std::string& name, bool sched_idle, int nice) {
  int policy = -1;
  int found_nice = -100;
  REQUIRE(thread_priority(name, &policy, &found_nice));
  if (sched_idle) {
    REQUIRE(policy == SCHED_IDLE);
  } else {
    REQUIRE(policy == SCHED_OTHER);
    REQUIRE(found_nice == nice);
  }
}

inline std::unique_ptr<Database> open_db(Options options = {}) {
  options.check_invariants = true;
  auto db = Database::open(options);
  REQUIRE(db.ok());
  return std::move(*db);
}

// accounts(id BIGINT PK, name VARCHAR(40), balance DECIMAL(12,2) NOT NULL)
inline TableSchema accounts_schema() {
  TableSchema schema;
  schema.name = "accounts";
  schema.columns = {ColumnDef::BigInt("id", true), ColumnDef::VarChar("name", 40),
                    ColumnDef::Decimal("balance", 12, 2, true)};
  schema.primary_key = {0};
  return schema;
}

// Creates `schema`'s table in one write and returns its id.
inline TableId create_table(Database& db, const TableSchema& schema) {
  TableId table = 0;
  // No Catch assertion on the owner thread (they are not thread-safe).
  REQUIRE(db.write([&](WriteTxn& txn) {
              auto created = txn.create_table(schema);
              if (!created.ok()) return created.status();
              table = *created;
              return Status::OK();
            }).ok());
  return table;
}

inline std::string int_key(const TableSchema& schema, int64_t id) {
  std::string key;
  Value value = Value::Int(id);
  REQUIRE(append_key(schema, schema.primary_key, std::span<const Value>(&value, 1), &key).ok());
  return key;
}

}  // namespace solo::test
