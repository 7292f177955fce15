// Test helpers for the JSON reader: a JsonValue back as text (runlog/json_copy.h), and compare
// two values the way a reader sees them (same types, numbers, strings, members in order).
#pragma once

#include <cmath>
#include <string>

#include "runlog/json_value.h"
#include "runlog/json_copy.h"

namespace traindeck::testing {

inline std::string toJson(const JsonValue& v) {
  return jsonText(v);
}

inline bool sameValue(const JsonValue& a, const JsonValue& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case JsonValue::Type::Null:
      return true;
    case JsonValue::Type::Bool:
      return a.boolOr(false) == b.boolOr(false);
    case JsonValue::Type::Number:
      // 1e2 writes back as 100 and reads as an integer: compare values, and exact ones exactly.
      return a.numberOr(0) == b.numberOr(0) && (!a.isInteger() || !b.isInteger() || a.integerOr(0) == b.integerOr(0));
    case JsonValue::Type::String:
      return a.text() == b.text();
    case JsonValue::Type::Array:
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!sameValue(a.items()[i], b.items()[i])) return false;
      }
      return true;
    case JsonValue::Type::Object:
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.members()[i].first != b.members()[i].first) return false;
        if (!sameValue(a.members()[i].second, b.members()[i].second)) return false;
      }
      return true;
  }
  return false;
}

}  // namespace traindeck::testing
