// Writers of the imported formats, written from the formats' specifications (protobuf's wire
// format, TFRecord, LevelDB's log as W&B frames it), so that tests and fuzz seeds make their
// fixtures instead of committing other tools' files. Header-only, test code.
#pragma once

#include <unistd.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imports/checksums.h"

namespace traindeck::fixtures {

// Protobuf's wire format: tag = field << 3 | wire type; varints little-endian base 128.
class Proto {
 public:
  Proto& varint(int field, std::uint64_t value) {
    tag(field, 0);
    raw(value);
    return *this;
  }
  Proto& fixed64(int field, double value) {
    tag(field, 1);
    append(&value, 8);
    return *this;
  }
  Proto& fixed32(int field, float value) {
    tag(field, 5);
    append(&value, 4);
    return *this;
  }
  Proto& bytes(int field, std::string_view value) {
    tag(field, 2);
    raw(value.size());
    m_out.append(value);
    return *this;
  }
  Proto& message(int field, const Proto& inner) { return bytes(field, inner.str()); }
  const std::string& str() const { return m_out; }

 private:
  void tag(int field, int wire) { raw(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(wire)); }
  void raw(std::uint64_t v) {
    while (v >= 0x80) {
      m_out += static_cast<char>((v & 0x7F) | 0x80);
      v >>= 7;
    }
    m_out += static_cast<char>(v);
  }
  void append(const void* p, std::size_t n) { m_out.append(static_cast<const char*>(p), n); }
  std::string m_out;
};

inline std::string packedFloats(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), 4);
  return out;
}

// TFRecord: uint64 length, masked CRC-32C of it, data, masked CRC-32C of the data.
inline std::string tfRecord(std::string_view data) {
  std::string frame(8, '\0');
  const std::uint64_t length = data.size();
  std::memcpy(frame.data(), &length, 8);
  const std::uint32_t lengthCrc = maskedCrc32c(frame);
  frame.append(reinterpret_cast<const char*>(&lengthCrc), 4);
  frame.append(data);
  const std::uint32_t dataCrc = maskedCrc32c(data);
  frame.append(reinterpret_cast<const char*>(&dataCrc), 4);
  return frame;
}

// TensorBoard's Event{wall_time=1, step=2, summary=5{value=1{tag=1, simple_value=2, tensor=8}}}.
inline std::string tfEventWithValue(double wallTime, std::int64_t step, const Proto& value) {
  return Proto()
      .fixed64(1, wallTime)
      .varint(2, static_cast<std::uint64_t>(step))
      .message(5, Proto().message(1, value))
      .str();
}
// TF1 and tensorboardX: simple_value.
inline std::string tfSimpleValue(double wallTime, std::int64_t step, std::string_view tag, float value) {
  return tfEventWithValue(wallTime, step, Proto().bytes(1, tag).fixed32(2, value));
}
// PyTorch's new_style: a DT_FLOAT tensor of shape [] with float_val (packed).
inline std::string tfFloatValTensor(double wallTime, std::int64_t step, std::string_view tag, float value) {
  const Proto tensor = Proto().varint(1, 1).message(2, Proto()).bytes(5, packedFloats({value}));
  return tfEventWithValue(wallTime, step, Proto().bytes(1, tag).message(8, tensor));
}
// A DT_DOUBLE tensor with one unpacked double_val.
inline std::string tfDoubleValTensor(double wallTime, std::int64_t step, std::string_view tag, double value) {
  const Proto tensor = Proto().varint(1, 2).fixed64(6, value);
  return tfEventWithValue(wallTime, step, Proto().bytes(1, tag).message(8, tensor));
}
// TF2: tensor_content holding the float's four bytes.
inline std::string tfContentTensor(double wallTime, std::int64_t step, std::string_view tag, float value) {
  const Proto tensor = Proto().varint(1, 1).message(2, Proto()).bytes(4, packedFloats({value}));
  return tfEventWithValue(wallTime, step, Proto().bytes(1, tag).message(8, tensor));
}

// The HParams plugin's session start, as PyTorch's add_hparams and TensorFlow's hp.hparams write
// it: Value{tag, tensor (empty), metadata=9{plugin_data=1{plugin_name="hparams",
// content=HParamsPluginData{version=1, session_start_info=3{hparams=1 map<key=1, Value=2>}}}}}.
// Each hparam's Value is google.protobuf.Value: number_value=2, string_value=3, bool_value=4.
inline std::string tfHparamsEvent(double wallTime, const std::vector<std::pair<std::string, Proto>>& hparams) {
  Proto start;
  for (const auto& [key, value] : hparams) start.message(1, Proto().bytes(1, key).message(2, value));
  const Proto content = Proto().varint(1, 0).message(3, start);
  const Proto metadata = Proto().message(1, Proto().bytes(1, "hparams").bytes(2, content.str()));
  const Proto tensor = Proto().varint(1, 7);
  return tfEventWithValue(wallTime, 0,
                          Proto().bytes(1, "_hparams_/session_start_info").message(8, tensor).message(9, metadata));
}
// A text summary (add_text): a DT_STRING tensor with string_val=8, plugin "text".
inline std::string tfTextEvent(double wallTime, std::int64_t step, std::string_view tag, std::string_view text) {
  const Proto tensor = Proto().varint(1, 7).bytes(8, text);
  const Proto metadata = Proto().message(1, Proto().bytes(1, "text"));
  return tfEventWithValue(wallTime, step, Proto().bytes(1, tag).message(8, tensor).message(9, metadata));
}
// The first record of every event file: Event{wall_time, file_version=3 "brain.Event:2"}.
inline std::string tfFileVersion(double wallTime) {
  return Proto().fixed64(1, wallTime).bytes(3, "brain.Event:2").str();
}

// W&B's .wandb: a 7-byte header, then LevelDB log chunks in 32 KiB blocks with zlib's CRC-32
// over the type byte and the data; a block's last 1..6 bytes are zeros (datastore.py's writer).
class WandbLog {
 public:
  static constexpr std::size_t kBlock = 32768, kHeader = 7;
  explicit WandbLog(unsigned char version = 0) {
    m_out = ":W&B";
    const std::uint16_t magic = 0xBEE1;
    m_out.append(reinterpret_cast<const char*>(&magic), 2);
    m_out += static_cast<char>(version);
  }
  // Returns the byte where the record's first chunk starts.
  std::size_t add(std::string_view record) {
    std::size_t left = kBlock - m_out.size() % kBlock;
    if (left < kHeader) m_out.append(left, '\0');
    const std::size_t start = m_out.size();
    left = kBlock - m_out.size() % kBlock;
    if (record.size() + kHeader <= left) {
      chunk(1, record);
      return start;
    }
    chunk(2, record.substr(0, left - kHeader));
    record.remove_prefix(left - kHeader);
    while (record.size() > kBlock - kHeader) {
      chunk(3, record.substr(0, kBlock - kHeader));
      record.remove_prefix(kBlock - kHeader);
    }
    chunk(4, record);
    return start;
  }
  std::string& bytes() { return m_out; }

 private:
  void chunk(char type, std::string_view data) {
    const std::uint32_t crc = crc32Ieee(data, crc32Ieee(std::string_view(&type, 1)));
    const std::uint16_t length = static_cast<std::uint16_t>(data.size());
    m_out.append(reinterpret_cast<const char*>(&crc), 4);
    m_out.append(reinterpret_cast<const char*>(&length), 2);
    m_out += type;
    m_out.append(data);
  }
  std::string m_out;
};

// W&B Record{history=2{item=1{key=1, value_json=16}, step=2{num=1}}}.
inline std::string wandbHistory(std::int64_t step, const std::vector<std::pair<std::string, std::string>>& items) {
  Proto history;
  for (const auto& [key, json] : items) history.message(1, Proto().bytes(1, key).bytes(16, json));
  history.message(2, Proto().varint(1, static_cast<std::uint64_t>(step)));
  return Proto().varint(1, 1).message(2, history).str();
}
// Record{config=5{update=1{key=1, value_json=16}}}.
inline std::string wandbConfig(const std::vector<std::pair<std::string, std::string>>& items) {
  Proto config;
  for (const auto& [key, json] : items) config.message(1, Proto().bytes(1, key).bytes(16, json));
  return Proto().message(5, config).str();
}
// Record{run=17{run_id=1, project=3, display_name=8}}.
inline std::string wandbRun(std::string_view id, std::string_view project, std::string_view displayName) {
  return Proto().message(17, Proto().bytes(1, id).bytes(3, project).bytes(8, displayName)).str();
}

inline void writeFile(const std::filesystem::path& file, std::string_view bytes) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A fresh folder under the temp directory, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("traindeck-" + tag + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) != nullptr) m_path = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!m_path.empty()) std::filesystem::remove_all(m_path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace traindeck::fixtures
