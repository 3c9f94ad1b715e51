// What one statement did on one engine, normalised so that solo's and
// PostgreSQL's answers can be compared: its rows as typed text cells, or its
// error (SQLSTATE and message). README.md says how cells are normalised and
// when two outcomes are the same.
#pragma once

#include <string>
#include <vector>

namespace solo::sql::differential {

// A cell's class. Values of different classes never compare equal (an
// INTEGER 1 is not the text '1').
enum class CellKind { kNull, kBool, kNumber, kText, kTimestamp };

struct Cell {
  CellKind kind = CellKind::kNull;
  // kBool: "true"/"false". kNumber: the digits without trailing fraction
  // zeros ("2.50" -> "2.5", "3.00" -> "3"). kText: as is. kTimestamp:
  // "YYYY-MM-DD HH:MM:SS[.f]" without trailing fraction zeros.
  std::string text;
  // kNumber only: the value came from a floating-point type (DOUBLE, REAL),
  // so it is compared with a relative tolerance (kDoubleTolerance).
  bool approximate = false;
};

using Row = std::vector<Cell>;

struct Outcome {
  bool ok = true;
  std::string sqlstate;  // when !ok: the five-character SQLSTATE
  std::string message;   // when !ok: the engine's message, for the report
  std::vector<Row> rows;
};

// Relative tolerance for a cell that either engine computed in floating
// point: sums of doubles in a different order differ in the last bits.
inline constexpr long double kDoubleTolerance = 1e-9L;

// Builders for the engines' adapters: `digits` is a number as either engine
// prints it; `stamp` a timestamp as "YYYY-MM-DD HH:MM:SS[.ffffff]".
Cell NumberCell(std::string digits, bool approximate);
Cell TimestampCell(std::string stamp);

// True when the two outcomes are the same: both errors with the same
// SQLSTATE, or both rows that match cell by cell (`ordered`: in this order;
// otherwise as multisets).
bool SameOutcome(const Outcome& solo, const Outcome& pg, bool ordered);

// The outcome for a report: "ERROR 22012: message" or the rows, one a line.
std::string Describe(const Outcome& outcome);

}  // namespace solo::sql::differential
