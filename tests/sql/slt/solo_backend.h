// Runs .test files against solo: an in-memory Database and one Session per
// file. Answers to skipif/onlyif "solo".
#pragma once

#include <memory>

#include "slt_backend.h"
#include "solo/database.h"
#include "solo/sql/session.h"

namespace solo::sql::slt {

class SoloBackend : public Backend {
 public:
  SoloBackend();
  ~SoloBackend() override;
  std::string_view name() const override { return "solo"; }
  void Reset() override;
  // Runs each statement of sql in the session; stops at the first error.
  ExecResult Execute(std::string_view sql) override;

 private:
  std::unique_ptr<Session> session_;
  std::unique_ptr<Database> db_;
};

}  // namespace solo::sql::slt
