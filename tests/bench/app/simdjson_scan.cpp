// Field by field as the hand-written scanner does: unescaped key, then the value by its type.
// Strings point into the parser's buffer and stay valid until the next line.
#include "simdjson_scan.h"

#include <simdjson.h>

namespace traindeck::bench {

namespace od = simdjson::ondemand;

struct SimdjsonScan::State {
  od::parser parser;
  od::parser streamParser;
};

SimdjsonScan::SimdjsonScan() : m_state(std::make_unique<State>()) {}
SimdjsonScan::~SimdjsonScan() = default;

namespace {

bool readValue(od::value value, FlatValue& v) {
  od::json_type type;
  if (value.type().get(type)) return false;
  switch (type) {
    case od::json_type::number: {
      v.type = FlatValue::Type::Number;
      od::number_type kind;
      if (value.get_number_type().get(kind)) return false;
      if (kind == od::number_type::signed_integer) {
        if (value.get_int64().get(v.integer)) return false;
        v.exactInteger = true;
        v.number = static_cast<double>(v.integer);
        return true;
      }
      return !value.get_double().get(v.number);
    }
    case od::json_type::string:
      v.type = FlatValue::Type::String;
      return !value.get_string().get(v.text);
    case od::json_type::null:
      v.type = FlatValue::Type::Null;
      return value.is_null();
    case od::json_type::boolean: {
      v.type = FlatValue::Type::Bool;
      bool b = false;
      return !value.get_bool().get(b);
    }
    default:
      v.type = FlatValue::Type::Other;
      (void)value.raw_json_token();  // skipped past, as the hand-written scanner would refuse it
      return true;
  }
}

bool readObject(od::object object, FlatRecord& out) {
  for (auto field : object) {
    std::string_view name;
    if (field.unescaped_key().get(name)) return false;
    FlatValue v{};
    if (!readValue(field.value(), v)) return false;
    if (const FlatKey key = flatKeyOf(name); key != FlatKey::Count) out.set(key, v);
  }
  return true;
}

}  // namespace

bool SimdjsonScan::scan(std::string_view line, FlatRecord& out) {
  out.clear();
  od::document doc;
  if (m_state->parser.iterate(line.data(), line.size(), line.size() + simdjson::SIMDJSON_PADDING).get(doc))
    return false;
  od::object object;
  if (doc.get_object().get(object)) return false;
  return readObject(object, out);  // trailing bytes after the object go unchecked here
}

std::size_t SimdjsonScan::scanStream(std::string_view bytes, std::size_t& trainRecords) {
  od::document_stream stream;
  if (m_state->streamParser.iterate_many(bytes.data(), bytes.size(), 1 << 24).get(stream)) return 0;
  std::size_t objects = 0;
  FlatRecord record;
  for (auto doc : stream) {
    od::object object;
    record.clear();
    if (doc.get_object().get(object) || !readObject(object, record)) continue;
    ++objects;
    const FlatValue& kind = record[FlatKey::Kind];
    if (kind.type == FlatValue::Type::String && kind.text == "train") ++trainRecords;
  }
  return objects;
}

}  // namespace traindeck::bench
