#include "parse_backend.h"

#include "solo/sql/parser.h"

namespace solo::sql::slt {

ExecResult ParseBackend::Execute(std::string_view sql) {
  ExecResult result;
  Result<ParsedStatement> parsed = ParseStatement(sql);
  if (!parsed.ok()) {
    result.ok = false;
    result.error_code = std::string(parsed.error().code());
    result.error_message = parsed.error().ToString();
  }
  return result;
}

}  // namespace solo::sql::slt
