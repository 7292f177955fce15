// A small streaming JSON writer for metrics records, run.json and `--json` output: objects,
// arrays, strings escaped per RFC 8259 (and made valid UTF-8), and numbers that read back exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);  // non-finite numbers are written as null
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();
  // A value that is already JSON text (a nested object written by another writer).
  JsonWriter& raw(std::string_view json);

  // Shorthand for key(name).value(v).
  template <class T>
  JsonWriter& field(std::string_view name, const T& v) {
    return key(name).value(v);
  }

  const std::string& str() const { return m_out; }

 private:
  void separate();
  std::string m_out;
  std::vector<bool> m_first;  // per open container: no element written yet
  bool m_afterKey = false;
};

// `text` as a JSON string literal, quotes included. Text that is not valid UTF-8 has each
// ill-formed sequence replaced by U+FFFD (runlog/utf8.h), so the result always parses.
std::string jsonEscape(std::string_view text);

}  // namespace traindeck
