// A backend that only parses: it checks that every statement of a .test file
// that solo must accept parses, and that every expected syntax error (42601
// and the other codes the parser reports) is found by the parser with its
// code. It answers to skipif/onlyif "solo" and "parser" ("skipif parser" marks
// an error that PostgreSQL reports as 42601 but that only the binder can
// find). Replaced by the real solo backend once the executor exists.
#pragma once

#include "slt_backend.h"

namespace solo::sql::slt {

class ParseBackend : public Backend {
 public:
  std::string_view name() const override { return "solo"; }
  std::vector<std::string_view> condition_names() const override { return {"solo", "parser"}; }
  bool syntax_only() const override { return true; }
  void Reset() override {}
  // Parses sql as one statement: ok, or the parser's error.
  ExecResult Execute(std::string_view sql) override;
};

}  // namespace solo::sql::slt
