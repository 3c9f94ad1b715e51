// Runs parsed .test records on a backend and compares the results.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "slt_backend.h"
#include "slt_file.h"

namespace solo::sql::slt {

struct RunStats {
  int passed = 0;
  int failed = 0;
  int skipped = 0;    // skipif/onlyif excluded the record
  int unchecked = 0;  // passed, but the backend could not confirm the SQLSTATE
};

// Runs records in order on backend (which the caller has Reset()), writing a
// report of every failure to out, each starting with "file_name:line:".
// verbose also reports the records that were skipped or left unchecked.
RunStats RunRecords(std::string_view file_name, const std::vector<Record>& records,
                    Backend& backend, std::ostream& out, bool verbose);

// Renders value as the runner compares it, for a column of type 'I', 'T' or
// 'R' (see slt_file.h): NULL, (empty), integers in decimal, R with exactly 3
// decimals (exact decimals given as text are rounded half away from zero).
std::string FormatValue(const Value& value, char type);

}  // namespace solo::sql::slt
