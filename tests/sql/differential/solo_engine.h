// solo, in process: an in-memory Database and one autocommit Session.
#pragma once

#include <memory>
#include <string_view>

#include "outcome.h"
#include "solo/database.h"
#include "solo/sql/session.h"

namespace solo::sql::differential {

class SoloEngine {
 public:
  // Opens an empty in-memory database. Aborts the process if it cannot.
  SoloEngine();
  ~SoloEngine();
  SoloEngine(const SoloEngine&) = delete;
  SoloEngine& operator=(const SoloEngine&) = delete;

  // Runs one statement in autocommit; an error undoes it. Calling thread only.
  Outcome Run(std::string_view sql);

 private:
  std::unique_ptr<Database> db_;
  std::unique_ptr<Session> session_;  // uses *db_
};

}  // namespace solo::sql::differential
