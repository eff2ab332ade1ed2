#include "attractor/model/edge_condition.h"

namespace attractor {

bool evaluate_condition(const Condition& condition, const ConditionKeyResolver& resolve) {
  using Op = ConditionClause::Op;
  for (const ConditionClause& clause : condition.clauses) {
    std::string value = resolve(clause.key);
    bool ok = false;
    switch (clause.op) {
      case Op::kEquals: ok = value == clause.literal; break;
      case Op::kNotEquals: ok = value != clause.literal; break;
      case Op::kTruthy: ok = !value.empty() && value != "false" && value != "0"; break;
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace attractor
