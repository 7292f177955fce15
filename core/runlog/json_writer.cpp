// Numbers use the shortest text that reads back to the same double (std::to_chars); strings
// are always valid UTF-8, each ill-formed byte sequence written as U+FFFD.
#include "json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "runlog/utf8.h"

namespace traindeck {

std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // Whatever the bytes, the text written is UTF-8 that parseJson accepts: a reason line
      // cut inside a character must not make run.json unreadable.
      const Utf8Sequence sequence = decodeUtf8(text.substr(i));
      out += sequence.valid ? text.substr(i, sequence.length) : kUtf8Replacement;
      i += sequence.length - 1;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

void JsonWriter::separate() {
  if (m_afterKey) {
    m_afterKey = false;
    return;
  }
  if (!m_first.empty()) {
    if (!m_first.back()) m_out += ',';
    m_first.back() = false;
  }
}

JsonWriter& JsonWriter::beginObject() {
  separate();
  m_out += '{';
  m_first.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  m_out += '}';
  m_first.pop_back();
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  separate();
  m_out += '[';
  m_first.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  m_out += ']';
  m_first.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  m_out += jsonEscape(name);
  m_out += ':';
  m_afterKey = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  separate();
  m_out += jsonEscape(text);
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  separate();
  if (!std::isfinite(number)) {
    m_out += "null";
    return *this;
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, number);
  m_out.append(buffer, end);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  separate();
  m_out += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  separate();
  m_out += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  m_out += json;
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  m_out += "null";
  return *this;
}

}  // namespace traindeck
