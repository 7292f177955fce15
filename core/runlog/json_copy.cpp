#include "json_copy.h"

#include <cmath>

namespace traindeck {

void writeJsonValue(JsonWriter& out, const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::Null:
      out.null();
      break;
    case JsonValue::Type::Bool:
      out.value(v.boolOr(false));
      break;
    case JsonValue::Type::Number:
      if (v.isInteger() && !(v.integerOr(0) == 0 && std::signbit(v.numberOr(0))))
        out.value(v.integerOr(0));
      else
        out.value(v.numberOr(0));
      break;
    case JsonValue::Type::String:
      out.value(v.text());
      break;
    case JsonValue::Type::Array:
      out.beginArray();
      for (const JsonValue& item : v.items()) writeJsonValue(out, item);
      out.endArray();
      break;
    case JsonValue::Type::Object:
      out.beginObject();
      for (const auto& [key, member] : v.members()) {
        out.key(key);
        writeJsonValue(out, member);
      }
      out.endObject();
      break;
  }
}

std::string jsonText(const JsonValue& value) {
  JsonWriter out;
  writeJsonValue(out, value);
  return out.str();
}

}  // namespace traindeck
