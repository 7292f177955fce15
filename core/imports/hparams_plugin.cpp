// google.protobuf.Value: null_value=1, number_value=2 (double), string_value=3, bool_value=4,
// struct_value=5, list_value=6; the nested kinds are shown as "(struct)" and "(list)".
#include "imports/hparams_plugin.h"

#include <charconv>

#include "imports/proto_reader.h"

namespace traindeck {

namespace {

bool protobufValueText(std::string_view value, std::string& text) {
  ProtoReader v(value);
  text = "null";
  while (v.next()) {
    if (v.field() == 2 && v.wire() == ProtoReader::Wire::Fixed64) {
      char digits[32];
      const auto end = std::to_chars(digits, digits + sizeof digits, v.float64()).ptr;
      text.assign(digits, end);
    } else if (v.field() == 3 && v.wire() == ProtoReader::Wire::Bytes) {
      text.assign(v.bytes());
    } else if (v.field() == 4 && v.wire() == ProtoReader::Wire::Varint) {
      text = v.varint() != 0 ? "true" : "false";
    } else if (v.field() == 5) {
      text = "(struct)";
    } else if (v.field() == 6) {
      text = "(list)";
    }
  }
  return !v.failed();
}

}  // namespace

bool parseHparamsPluginData(std::string_view content,
                            const std::function<void(std::string_view, std::string)>& onHparam) {
  ProtoReader data(content);
  while (data.next()) {
    if (data.field() != 3 || data.wire() != ProtoReader::Wire::Bytes) continue;
    ProtoReader start(data.bytes());
    while (start.next()) {
      if (start.field() != 1 || start.wire() != ProtoReader::Wire::Bytes) continue;
      ProtoReader entry(start.bytes());  // a map entry: key=1, value=2
      std::string_view key;
      std::string text = "null";
      while (entry.next()) {
        if (entry.field() == 1 && entry.wire() == ProtoReader::Wire::Bytes) key = entry.bytes();
        if (entry.field() == 2 && entry.wire() == ProtoReader::Wire::Bytes && !protobufValueText(entry.bytes(), text))
          return false;
      }
      if (entry.failed()) return false;
      if (!key.empty()) onHparam(key, std::move(text));
    }
    if (start.failed()) return false;
  }
  return !data.failed();
}

}  // namespace traindeck
