#include "exec/eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "exec/value_ops.h"
#include "solo/codec.h"
#include "utf8.h"

namespace solo::sql {
namespace {

const Value kNullValue;

// Three-valued logic: a kBool or NULL.
int Truth(const Value& value, SourcePos pos) {
  if (value.is_null()) return -1;
  if (value.kind() != ValueKind::kBool) {
    ThrowSql(SqlState::kDatatypeMismatch, "argument of a condition must be type boolean", pos);
  }
  return value.as_bool() ? 1 : 0;
}

bool CompareResult(BinaryOp op, int cmp) {
  switch (op) {
    case BinaryOp::kEq: return cmp == 0;
    case BinaryOp::kNe: return cmp != 0;
    case BinaryOp::kLt: return cmp < 0;
    case BinaryOp::kLe: return cmp <= 0;
    case BinaryOp::kGt: return cmp > 0;
    default: return cmp >= 0;
  }
}

// Runs a subquery and keeps what an expression needs of it.
class SubqueryTarget : public RowTarget {
 public:
  enum class Mode { kScalar, kExists, kIn };
  SubqueryTarget(Mode mode, const Value* probe, SourcePos pos) : mode_(mode), probe_(probe), pos_(pos) {}
  bool Emit(std::span<const Value> row) override {
    ++rows_;
    switch (mode_) {
      case Mode::kScalar:
        if (rows_ > 1) {
          ThrowSql(SqlState::kCardinalityViolation,
                   "more than one row returned by a subquery used as an expression", pos_);
        }
        first_ = row[0];
        return true;
      case Mode::kExists: return false;
      case Mode::kIn:
        if (row[0].is_null()) {
          saw_null_ = true;
        } else if (CompareValues(*probe_, row[0], pos_) == 0) {
          found_ = true;
          return false;
        }
        return true;
    }
    return false;
  }
  Mode mode_;
  const Value* probe_;
  SourcePos pos_;
  uint64_t rows_ = 0;
  Value first_;
  bool found_ = false;
  bool saw_null_ = false;
};

// units / 10^scale rounded to `places` digits after the point (before it
// when negative), halves away from zero: PostgreSQL's round(numeric,
// integer). 22003 when the result does not fit solo's 64-bit DECIMAL.
void RoundDecimal(int64_t units, int scale, int64_t places, SourcePos pos, Value* out) {
  auto out_of_range = [&]() {
    ThrowSql(SqlState::kNumericValueOutOfRange,
             fmt::format("round to {} places is out of range for solo's DECIMAL (64 bits, scale "
                         "at most 18)",
                         places),
             pos);
  };
  if (places > 18) out_of_range();
  // Every digit goes below -19 places (|units| < 10^19 / 2 then), and
  // scale - places cannot overflow.
  places = std::max<int64_t>(places, -20);
  const int result_scale = places > 0 ? static_cast<int>(places) : 0;
  if (scale - places > 18) {
    // 10^(scale - places) > |units|: the result is 0, or 10^19 units of the
    // point's place when |units| is at least half of it (out of range).
    constexpr int64_t kHalf19 = 5'000'000'000'000'000'000;
    if (scale - places == 19 && (units >= kHalf19 || units <= -kHalf19)) out_of_range();
    out->SetDecimal(0, result_scale);
    return;
  }
  // Rounding to n < 0 places rounds units / 10^-n (the same units at scale
  // `scale - n`) to 0 places, then multiplies back.
  const int from_scale = places < 0 ? scale - static_cast<int>(places) : scale;
  int64_t rounded;
  if (!Rescale(units, from_scale, result_scale, &rounded)) out_of_range();
  if (places < 0 && __builtin_mul_overflow(rounded, kPow10[-places], &rounded)) out_of_range();
  out->SetDecimal(rounded, result_scale);
}

void EvalFunction(const BExpr& expr, const Frame& frame, Value* out) {
  Value scratch;
  switch (expr.function) {
    case ScalarFn::kCoalesce:
      for (const BExprPtr& arg : expr.args) {
        const Value& value = Eval(*arg, frame, &scratch);
        if (!value.is_null()) {
          *out = value;
          return;
        }
      }
      out->SetNull();
      return;
    case ScalarFn::kNullif: {
      Value second_scratch;
      const Value& first = Eval(*expr.args[0], frame, &scratch);
      const Value& second = Eval(*expr.args[1], frame, &second_scratch);
      if (!first.is_null() && !second.is_null() && CompareValues(first, second, expr.pos) == 0) {
        out->SetNull();
      } else {
        *out = first;
      }
      return;
    }
    default: break;
  }
  const Value& arg = Eval(*expr.args[0], frame, &scratch);
  if (arg.is_null()) {
    out->SetNull();
    return;
  }
  auto text_of = [&](const Value& value) -> std::string {
    return value.kind() == ValueKind::kText ? value.as_text() : value.ToString();
  };
  switch (expr.function) {
    case ScalarFn::kLength: {
      out->SetInt(static_cast<int64_t>(Utf8Characters(text_of(arg))));
      return;
    }
    case ScalarFn::kOctetLength: {
      out->SetInt(static_cast<int64_t>(arg.kind() == ValueKind::kText ? arg.as_text().size()
                                                                      : arg.ToString().size()));
      return;
    }
    case ScalarFn::kBpcharStrip: {
      if (arg.kind() != ValueKind::kText) {
        *out = arg;  // a number or timestamp compared with a CHAR converts the CHAR
        return;
      }
      out->SetText(BpcharStripped(arg.as_text()));
      return;
    }
    case ScalarFn::kBpcharPad: {
      out->SetText(text_of(arg));
      PadBpchar(expr.index, &out->mutable_text());
      return;
    }
    case ScalarFn::kUpper:
    case ScalarFn::kLower: {
      std::string text = text_of(arg);
      for (char& ch : text) {
        if (expr.function == ScalarFn::kUpper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
        if (expr.function == ScalarFn::kLower && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + 32);
      }
      out->SetText(text);
      return;
    }
    case ScalarFn::kTrim: {
      std::string text = text_of(arg);
      size_t first = text.find_first_not_of(' ');
      if (first == std::string::npos) {
        out->SetText("");
      } else {
        out->SetText(text.substr(first, text.find_last_not_of(' ') - first + 1));
      }
      return;
    }
    case ScalarFn::kAbs: {
      if (!IsNumeric(arg)) {
        ThrowSql(SqlState::kUndefinedFunction, "function abs does not exist for this type", expr.pos);
      }
      bool negative = arg.kind() == ValueKind::kDouble ? arg.as_double() < 0 : arg.as_int() < 0;
      if (negative) Negate(arg, out, expr.pos);
      else *out = arg;
      return;
    }
    case ScalarFn::kRound: {
      Value number = arg;
      if (number.kind() == ValueKind::kText) number = ParseNumericText(number.as_text(), expr.pos);
      if (expr.args.size() == 1) {
        if (number.kind() == ValueKind::kDecimal) {
          RoundDecimal(number.units(), number.scale(), 0, expr.pos, out);
        } else if (IsNumeric(number)) {
          // round(double precision): halves to even, as rint.
          out->SetDouble(std::nearbyint(number.kind() == ValueKind::kInt
                                            ? static_cast<double>(number.as_int())
                                            : number.as_double()));
        } else {
          ThrowSql(SqlState::kUndefinedFunction, "function round does not exist for this type",
                   expr.pos);
        }
        return;
      }
      Value places_scratch;
      const Value& places = Eval(*expr.args[1], frame, &places_scratch);
      if (places.is_null()) {
        out->SetNull();
        return;
      }
      if (places.kind() != ValueKind::kInt || number.kind() == ValueKind::kDouble ||
          !IsNumeric(number)) {
        ThrowSql(SqlState::kUndefinedFunction,
                 "function round(x, n) exists for a numeric x and an integer n only", expr.pos);
      }
      if (number.kind() == ValueKind::kInt) {
        RoundDecimal(number.as_int(), 0, places.as_int(), expr.pos, out);
      } else {
        RoundDecimal(number.units(), number.scale(), places.as_int(), expr.pos, out);
      }
      return;
    }
    case ScalarFn::kReplace: {
      Value from_scratch, to_scratch;
      const Value& from = Eval(*expr.args[1], frame, &from_scratch);
      const Value& to = Eval(*expr.args[2], frame, &to_scratch);
      if (from.is_null() || to.is_null()) {
        out->SetNull();
        return;
      }
      const std::string text = text_of(arg);
      const std::string from_text = text_of(from);
      const std::string to_text = text_of(to);
      if (from_text.empty()) {
        out->SetText(text);
        return;
      }
      std::string result;
      size_t start = 0;
      for (size_t found; (found = text.find(from_text, start)) != std::string::npos;
           start = found + from_text.size()) {
        result.append(text, start, found - start);
        result += to_text;
      }
      result.append(text, start, std::string::npos);
      out->SetText(std::move(result));
      return;
    }
    case ScalarFn::kSubstr: {
      std::string text = text_of(arg);
      Value start_scratch, length_scratch;
      const Value& start_value = Eval(*expr.args[1], frame, &start_scratch);
      if (start_value.is_null()) {
        out->SetNull();
        return;
      }
      solo::ColumnDef bigint;
      bigint.type = Type::kBigInt;
      Value start_int;
      CastValue(start_value, bigint, &start_int, expr.pos);
      int64_t start = start_int.as_int();
      int64_t length = INT64_MAX / 4;
      if (expr.args.size() == 3) {
        const Value& length_value = Eval(*expr.args[2], frame, &length_scratch);
        if (length_value.is_null()) {
          out->SetNull();
          return;
        }
        Value length_int;
        CastValue(length_value, bigint, &length_int, expr.pos);
        length = length_int.as_int();
        if (length < 0) {
          ThrowSql(SqlState::kSubstringError, "negative substring length not allowed", expr.pos);
        }
      }
      // Characters [start, start + length), 1-based; positions before 1 count.
      // length >= 0, so only a sum past INT64_MAX can overflow: it means "to
      // the end of the text", as in PostgreSQL.
      int64_t end = start > INT64_MAX - length ? INT64_MAX : start + length;
      std::string result;
      int64_t char_pos = 0;
      for (size_t byte = 0; byte < text.size();) {
        const size_t len = Utf8CharLength(text[byte]);
        ++char_pos;
        if (char_pos >= start && char_pos < end) result.append(text, byte, len);
        byte += len;
      }
      out->SetText(result);
      return;
    }
    default: out->SetNull(); return;
  }
}

}  // namespace

void ThrowCanceled() {
  ThrowSql(SqlState::kQueryCanceled, "canceling statement due to user request");
}

// The value of a slot, parameter or constant, in place; nullptr for any
// other expression (and for a missing parameter, which Eval reports).
inline const Value* Leaf(const BExpr& expr, const Frame& frame) {
  switch (expr.kind) {
    case BKind::kConst: return &expr.constant;
    case BKind::kParam:
      return expr.index < frame.env->params.size() ? &frame.env->params[expr.index] : nullptr;
    case BKind::kColumn: {
      const Frame* target = &frame;
      for (uint32_t depth = 0; depth < expr.depth; ++depth) target = target->outer;
      return &target->slots[expr.index];
    }
    default: return nullptr;
  }
}

// A comparison of two non-NULL values: two integers directly (what
// CompareValues gives them), anything else through CompareValues.
inline bool CompareNonNull(BinaryOp op, const Value& left, const Value& right, SourcePos pos) {
  if (left.kind() == ValueKind::kInt && right.kind() == ValueKind::kInt) {
    const int64_t l = left.as_int(), r = right.as_int();
    return CompareResult(op, l < r ? -1 : l > r ? 1 : 0);
  }
  return CompareResult(op, CompareValues(left, right, pos));
}

bool EvalPredicate(const BExpr& expr, const Frame& frame) {
  // A filter comparing slots, parameters or constants (the commonest) is
  // decided here: no boolean Value is made only to be tested.
  if (expr.kind == BKind::kCompare) {
    const Value* left = Leaf(*expr.args[0], frame);
    const Value* right = left == nullptr ? nullptr : Leaf(*expr.args[1], frame);
    if (right != nullptr) {
      return !left->is_null() && !right->is_null() &&
             CompareNonNull(expr.binary, *left, *right, expr.pos);
    }
  }
  Value scratch;
  const Value& value = Eval(expr, frame, &scratch);
  return Truth(value, expr.pos) == 1;
}

// + and - of two integers, or of a decimal and an integer or a decimal of
// the same scale, into *out, as Arithmetic computes them; false (and *out
// untouched) for anything else or a result that does not fit 64 bits.
inline bool AddSubtract(BinaryOp op, const Value& left, const Value& right, Value* out) {
  if (op != BinaryOp::kAdd && op != BinaryOp::kSub) return false;
  const ValueKind lk = left.kind(), rk = right.kind();
  int64_t l, r;
  int scale;
  if (lk == ValueKind::kInt && rk == ValueKind::kInt) {
    int64_t result;
    const bool overflow = op == BinaryOp::kAdd ? __builtin_add_overflow(left.as_int(), right.as_int(), &result)
                                               : __builtin_sub_overflow(left.as_int(), right.as_int(), &result);
    if (overflow) return false;
    out->SetInt(result);
    return true;
  }
  if (lk == ValueKind::kDecimal && rk == ValueKind::kDecimal) {
    if (left.scale() != right.scale()) return false;
    l = left.units();
    r = right.units();
    scale = left.scale();
  } else if (lk == ValueKind::kDecimal && rk == ValueKind::kInt) {
    scale = left.scale();
    l = left.units();
    if (__builtin_mul_overflow(right.as_int(), kPow10[scale], &r)) return false;
  } else if (lk == ValueKind::kInt && rk == ValueKind::kDecimal) {
    scale = right.scale();
    r = right.units();
    if (__builtin_mul_overflow(left.as_int(), kPow10[scale], &l)) return false;
  } else {
    return false;
  }
  int64_t result;
  const bool overflow = op == BinaryOp::kAdd ? __builtin_add_overflow(l, r, &result)
                                             : __builtin_sub_overflow(l, r, &result);
  if (overflow) return false;
  out->SetDecimal(result, scale);
  return true;
}

const Value& Eval(const BExpr& expr, const Frame& frame, Value* out) {
  switch (expr.kind) {
    case BKind::kConst: return expr.constant;
    case BKind::kParam:
      if (expr.index >= frame.env->params.size()) {
        ThrowSql(SqlState::kUndefinedParameter, fmt::format("there is no parameter ${}", expr.index + 1),
                 expr.pos);
      }
      return frame.env->params[expr.index];
    case BKind::kColumn: {
      const Frame* target = &frame;
      for (uint32_t depth = 0; depth < expr.depth; ++depth) target = target->outer;
      return target->slots[expr.index];
    }
    case BKind::kNegate: {
      Value scratch;
      const Value& operand = Eval(*expr.args[0], frame, &scratch);
      if (operand.is_null()) out->SetNull();
      else Negate(operand, out, expr.pos);
      return *out;
    }
    case BKind::kNot: {
      Value scratch;
      int truth = Truth(Eval(*expr.args[0], frame, &scratch), expr.args[0]->pos);
      if (truth < 0) out->SetNull();
      else out->SetBool(truth == 0);
      return *out;
    }
    case BKind::kAnd:
    case BKind::kOr: {
      Value scratch;
      int left = Truth(Eval(*expr.args[0], frame, &scratch), expr.args[0]->pos);
      bool is_and = expr.kind == BKind::kAnd;
      if (left == (is_and ? 0 : 1)) {
        out->SetBool(!is_and);
        return *out;
      }
      int right = Truth(Eval(*expr.args[1], frame, &scratch), expr.args[1]->pos);
      if (right == (is_and ? 0 : 1)) out->SetBool(!is_and);
      else if (left < 0 || right < 0) out->SetNull();
      else out->SetBool(is_and);
      return *out;
    }
    case BKind::kCompare: {
      const Value* left = Leaf(*expr.args[0], frame);
      const Value* right = left == nullptr ? nullptr : Leaf(*expr.args[1], frame);
      if (right != nullptr) {  // no scratch needed
        if (left->is_null() || right->is_null()) {
          out->SetNull();
        } else {
          out->SetBool(CompareNonNull(expr.binary, *left, *right, expr.pos));
        }
        return *out;
      }
      Value left_scratch, right_scratch;
      const Value& left_value = Eval(*expr.args[0], frame, &left_scratch);
      const Value& right_value = Eval(*expr.args[1], frame, &right_scratch);
      if (left_value.is_null() || right_value.is_null()) out->SetNull();
      else out->SetBool(CompareResult(expr.binary, CompareValues(left_value, right_value, expr.pos)));
      return *out;
    }
    case BKind::kArith: {
      // Operands that are slots, parameters or constants need no scratch;
      // integers, and decimals with integers or decimals of their scale,
      // are added and subtracted here (what Arithmetic gives them) unless
      // the result leaves 64 bits, which Arithmetic then handles.
      const Value* left = Leaf(*expr.args[0], frame);
      const Value* right = left == nullptr ? nullptr : Leaf(*expr.args[1], frame);
      if (right != nullptr) {
        if (left->is_null() || right->is_null()) {
          out->SetNull();
        } else if (!AddSubtract(expr.binary, *left, *right, out)) {
          Arithmetic(expr.binary, *left, *right, out, expr.pos);
        }
        return *out;
      }
      Value left_scratch, right_scratch;
      const Value& left_value = Eval(*expr.args[0], frame, &left_scratch);
      const Value& right_value = Eval(*expr.args[1], frame, &right_scratch);
      if (left_value.is_null() || right_value.is_null()) out->SetNull();
      else if (!AddSubtract(expr.binary, left_value, right_value, out)) {
        Arithmetic(expr.binary, left_value, right_value, out, expr.pos);
      }
      return *out;
    }
    case BKind::kConcat: {
      Value left_scratch, right_scratch;
      const Value& left = Eval(*expr.args[0], frame, &left_scratch);
      const Value& right = Eval(*expr.args[1], frame, &right_scratch);
      if (left.is_null() || right.is_null()) out->SetNull();
      else if (expr.kind == BKind::kConcat) Concat(left, right, out);
      else Arithmetic(expr.binary, left, right, out, expr.pos);
      return *out;
    }
    case BKind::kIsNull: {
      Value scratch;
      bool is_null = Eval(*expr.args[0], frame, &scratch).is_null();
      out->SetBool(is_null != expr.negated);
      return *out;
    }
    case BKind::kInList: {
      Value scratch, item_scratch;
      const Value& operand = Eval(*expr.args[0], frame, &scratch);
      if (operand.is_null()) {
        out->SetNull();
        return *out;
      }
      bool saw_null = false;
      for (size_t item = 1; item < expr.args.size(); ++item) {
        const Value& value = Eval(*expr.args[item], frame, &item_scratch);
        if (value.is_null()) {
          saw_null = true;
        } else if (CompareValues(operand, value, expr.pos) == 0) {
          out->SetBool(!expr.negated);
          return *out;
        }
      }
      if (saw_null) out->SetNull();
      else out->SetBool(expr.negated);
      return *out;
    }
    case BKind::kLike: {
      Value text_scratch, pattern_scratch, escape_scratch;
      const Value& text = Eval(*expr.args[0], frame, &text_scratch);
      const Value& pattern = Eval(*expr.args[1], frame, &pattern_scratch);
      std::string escape = "\\";
      if (expr.args.size() > 2) {
        const Value& escape_value = Eval(*expr.args[2], frame, &escape_scratch);
        if (escape_value.is_null()) {
          out->SetNull();
          return *out;
        }
        escape = escape_value.ToString();
        if (!IsLikeEscape(escape)) {
          ThrowSql(SqlState::kInvalidEscapeSequence,
                   "invalid escape string: it must be empty or one character", expr.args[2]->pos);
        }
      }
      if (text.is_null() || pattern.is_null()) {
        out->SetNull();
        return *out;
      }
      std::string text_string = text.kind() == ValueKind::kText ? text.as_text() : text.ToString();
      std::string pattern_string =
          pattern.kind() == ValueKind::kText ? pattern.as_text() : pattern.ToString();
      if (LikePatternEndsInEscape(pattern_string, escape)) {
        ThrowSql(SqlState::kInvalidEscapeSequence,
                 "LIKE pattern must not end with escape character", expr.args[1]->pos);
      }
      out->SetBool(Like(text_string, pattern_string, escape) != expr.negated);
      return *out;
    }
    case BKind::kCase: {
      Value operand_scratch, scratch;
      size_t arg = 0;
      const Value* operand = nullptr;
      if (expr.has_operand) operand = &Eval(*expr.args[arg++], frame, &operand_scratch);
      size_t pairs_end = expr.args.size() - (expr.has_else ? 1 : 0);
      for (; arg + 1 < pairs_end + 1 && arg < pairs_end; arg += 2) {
        const Value& when = Eval(*expr.args[arg], frame, &scratch);
        bool hit;
        if (operand != nullptr) {
          hit = !operand->is_null() && !when.is_null() && CompareValues(*operand, when, expr.pos) == 0;
        } else {
          hit = Truth(when, expr.args[arg]->pos) == 1;
        }
        if (hit) {
          const Value& result = Eval(*expr.args[arg + 1], frame, out);
          if (&result != out) *out = result;
          return *out;
        }
      }
      if (expr.has_else) {
        const Value& result = Eval(*expr.args.back(), frame, out);
        if (&result != out) *out = result;
      } else {
        out->SetNull();
      }
      return *out;
    }
    case BKind::kCast: {
      Value scratch;
      const Value& operand = Eval(*expr.args[0], frame, &scratch);
      CastValue(operand, expr.cast_type, out, expr.pos);
      return *out;
    }
    case BKind::kFunction: EvalFunction(expr, frame, out); return *out;
    case BKind::kSubquery: {
      SubqueryTarget target(SubqueryTarget::Mode::kScalar, nullptr, expr.pos);
      RunSelect(*expr.subquery, frame.env, &frame, &target);
      *out = target.first_;
      return *out;
    }
    case BKind::kExists: {
      SubqueryTarget target(SubqueryTarget::Mode::kExists, nullptr, expr.pos);
      RunSelect(*expr.subquery, frame.env, &frame, &target);
      out->SetBool(target.rows_ > 0);
      return *out;
    }
    case BKind::kInSubquery: {
      Value scratch;
      const Value& operand = Eval(*expr.args[0], frame, &scratch);
      if (operand.is_null()) {
        // NULL IN (no rows) is false (NOT IN: true), as for an empty list;
        // with rows it is NULL whatever they hold: only the first is needed.
        SubqueryTarget any(SubqueryTarget::Mode::kExists, nullptr, expr.pos);
        RunSelect(*expr.subquery, frame.env, &frame, &any);
        if (any.rows_ > 0)
          out->SetNull();
        else
          out->SetBool(expr.negated);
        return *out;
      }
      SubqueryTarget target(SubqueryTarget::Mode::kIn, &operand, expr.pos);
      RunSelect(*expr.subquery, frame.env, &frame, &target);
      if (target.found_) out->SetBool(!expr.negated);
      else if (target.saw_null_) out->SetNull();
      else out->SetBool(expr.negated);
      return *out;
    }
  }
  return kNullValue;
}

}  // namespace solo::sql
