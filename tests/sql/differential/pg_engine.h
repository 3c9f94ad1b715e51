// PostgreSQL through libpqxx 6: one connection to a database of its own,
// created with the C collation (so that text sorts by bytes, as in solo),
// each statement in autocommit.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "outcome.h"

namespace solo::sql::differential {

class PgEngine {
 public:
  // Connects with `conninfo` (a libpq connection string), (re)creates the
  // database `database` there and connects to it. Throws std::runtime_error
  // with the server's message when it cannot.
  PgEngine(const std::string& conninfo, const std::string& database);
  ~PgEngine();
  PgEngine(const PgEngine&) = delete;
  PgEngine& operator=(const PgEngine&) = delete;

  // Runs one statement in autocommit. Calling thread only. A lost
  // connection throws std::runtime_error (not an outcome: the run ends).
  Outcome Run(std::string_view sql);

 private:
  struct Connection;  // holds the pqxx::connection (its header stays in pg_engine.cc)
  std::unique_ptr<Connection> connection_;
};

}  // namespace solo::sql::differential
