// Test helpers for the JSON reader: write a JsonValue back out through JsonWriter, and compare
// two values the way a reader sees them (same types, numbers, strings, members in order).
#pragma once

#include <cmath>
#include <string>

#include "runlog/json_value.h"
#include "runlog/json_writer.h"

namespace traindeck::testing {

inline void writeValue(JsonWriter& out, const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::Null:
      out.null();
      break;
    case JsonValue::Type::Bool:
      out.value(v.boolOr(false));
      break;
    case JsonValue::Type::Number:
      if (v.isInteger() && !(v.integerOr(0) == 0 && std::signbit(v.numberOr(0)))) {  // "-0" stays -0
        out.value(v.integerOr(0));
      } else {
        out.value(v.numberOr(0));
      }
      break;
    case JsonValue::Type::String:
      out.value(v.text());
      break;
    case JsonValue::Type::Array:
      out.beginArray();
      for (const JsonValue& item : v.items()) writeValue(out, item);
      out.endArray();
      break;
    case JsonValue::Type::Object:
      out.beginObject();
      for (const auto& [key, value] : v.members()) {
        out.key(key);
        writeValue(out, value);
      }
      out.endObject();
      break;
  }
}

inline std::string toJson(const JsonValue& v) {
  JsonWriter out;
  writeValue(out, v);
  return out.str();
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
