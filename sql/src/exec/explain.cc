// EXPLAIN: the plan as indented lines, naming each scan's access path.
#include <fmt/format.h>

#include "exec/eval.h"
#include "exec/plan.h"

namespace solo::sql {
namespace {

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t idx = 0; idx < parts.size(); ++idx) {
    if (idx > 0) out += separator;
    out += parts[idx];
  }
  return out;
}

void ExplainSelectRows(const SelectPlan& plan, int indent, std::vector<std::string>* out);

void ExplainAppend(const SelectPlan& plan, int indent, std::vector<std::string>* out);

// An INTERSECT or EXCEPT: "HashSetOp", then its left side (this plan's rows)
// and its right side.
void ExplainSelect(const SelectPlan& plan, int indent, std::vector<std::string>* out) {
  if (plan.set_op == SelectPlan::SetOp::kNone) {
    ExplainAppend(plan, indent, out);
    return;
  }
  out->push_back(std::string(indent * 2, ' ') + "HashSetOp " +
                 (plan.set_op == SelectPlan::SetOp::kIntersect ? "Intersect" : "Except") +
                 (plan.set_all ? " All" : ""));
  ExplainAppend(plan, indent + 1, out);
  ExplainSelect(*plan.set_right, indent + 1, out);
}

// A plan with UNION arms: "Append", then this plan's own rows and each arm's.
void ExplainAppend(const SelectPlan& plan, int indent, std::vector<std::string>* out) {
  if (plan.union_arms.empty()) {
    ExplainSelectRows(plan, indent, out);
    return;
  }
  out->push_back(std::string(indent * 2, ' ') + "Append");
  ExplainSelectRows(plan, indent + 1, out);
  for (const std::unique_ptr<SelectPlan>& arm : plan.union_arms) {
    ExplainSelect(*arm, indent + 1, out);
  }
}

void ExplainSelectRows(const SelectPlan& plan, int indent, std::vector<std::string>* out) {
  auto line = [&](std::string text) { out->push_back(std::string(indent * 2, ' ') + text); };
  if (plan.limit || plan.offset) {
    line("Limit");
    ++indent;
  }
  if (plan.need_sort) {
    std::vector<std::string> keys;
    for (const auto& key : plan.order) {
      std::string text = key.text + (key.descending ? " DESC" : "");
      if (key.nulls_first != key.descending) {
        text += key.nulls_first ? " NULLS FIRST" : " NULLS LAST";
      }
      keys.push_back(std::move(text));
    }
    line("Sort: " + Join(keys, ", "));
    ++indent;
  } else if (!plan.order.empty()) {
    line("Order: by the scan's key order (no sort)");
  }
  if (plan.distinct) {
    line("Distinct (hash)");
    ++indent;
  }
  if (plan.aggregate) {
    std::vector<std::string> aggs;
    for (const AggSpec& agg : plan.aggs) aggs.push_back(agg.text);
    if (plan.group_keys.empty()) {
      line("Aggregate: " + Join(aggs, ", "));
    } else {
      line((plan.streaming ? "StreamAggregate: group by " : "HashAggregate: group by ") +
           Join(plan.group_text, ", ") +
           (aggs.empty() ? "" : "; " + Join(aggs, ", ")));
    }
    ++indent;
  }
  if (plan.levels.size() > 1) {
    line("Nested loop join");
    ++indent;
  }
  if (plan.levels.empty()) line("Result (one row)");
  int batched_level = BatchedLookupLevel(plan);
  for (size_t level_idx = 0; level_idx < plan.levels.size(); ++level_idx) {
    const ScanLevel& level = plan.levels[level_idx];
    std::string name = level.name == level.schema.name || level.schema.name.empty()
                           ? level.name
                           : level.schema.name + " AS " + level.name;
    std::string text;
    if (level.derived) {
      text = "Subquery scan " + level.name;
    } else {
      bool point = level.index_name.empty() &&
                   level.equal.size() + (level.in_values.empty() ? 0 : 1) == level.key_columns.size();
      std::vector<std::string> conditions;
      for (const KeyBound& bound : level.equal) conditions.push_back(bound.text);
      if (!level.in_values.empty()) conditions.push_back(level.in_text);
      if (level.lower.value) conditions.push_back(level.lower.text);
      if (level.upper.value) conditions.push_back(level.upper.text);
      std::string path = level.index_name.empty() ? "primary key" : "index " + level.index_name;
      if (point && !level.in_values.empty()) {
        text = fmt::format("Point lookups {} by primary key ({})", name, Join(conditions, " AND "));
      } else if (!level.in_values.empty()) {
        text = fmt::format("Range scans {} by {} ({})", name, path, Join(conditions, " AND "));
      } else if (point) {
        text = fmt::format("Point lookup {} by primary key ({})", name, Join(conditions, " AND "));
      } else if (conditions.empty()) {
        text = fmt::format("Full scan {} by {}", name, path);
      } else {
        text = fmt::format("Range scan {} by {} ({})", name, path, Join(conditions, " AND "));
      }
      if (level.reverse) text += " backward";
      if (static_cast<int>(level_idx) == batched_level) {
        text += fmt::format(", batched (up to {} outer rows a lookup)", kJoinLookupBatch);
      }
    }
    if (level.left_join) text = (level.full_join ? "Full join: " : "Left join: ") + text;
    line(text);
    if (!level.filter_text.empty()) line("  Filter: " + Join(level.filter_text, " AND "));
    if (level.derived) ExplainSelect(*level.derived, indent + 2, out);
  }
}

}  // namespace

std::vector<std::string> ExplainPlan(const Plan& plan) {
  std::vector<std::string> out;
  switch (plan.kind) {
    case StatementKind::kSelect: ExplainSelect(*plan.select, 0, &out); break;
    case StatementKind::kInsert:
      out.push_back(fmt::format("Insert into {}", plan.insert->schema.name));
      if (plan.insert->select) ExplainSelect(*plan.insert->select, 1, &out);
      else out.push_back(fmt::format("  Values ({} rows)", plan.insert->rows.size()));
      break;
    case StatementKind::kUpdate:
    case StatementKind::kDelete:
      out.push_back(fmt::format("{} {}", plan.kind == StatementKind::kUpdate ? "Update" : "Delete from",
                                plan.modify->scan->levels[0].schema.name));
      ExplainSelect(*plan.modify->scan, 1, &out);
      break;
    default: out.push_back(std::string(StatementKindName(plan.kind))); break;
  }
  return out;
}

}  // namespace solo::sql
