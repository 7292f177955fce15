// A bounds-checked reader of protobuf's wire format, enough for the few messages the importers
// read (TensorBoard's Event, W&B's Record): field by field, no schema, no libprotobuf. Any byte
// sequence ends in fields or in failed(), never in a read outside the bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace traindeck {

class ProtoReader {
 public:
  enum class Wire { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

  explicit ProtoReader(std::string_view bytes) : m_bytes(bytes) {}

  // Moves to the next field; false at the end or at malformed input (then failed()).
  bool next();
  bool failed() const { return m_failed; }

  int field() const { return m_field; }
  Wire wire() const { return m_wire; }
  std::uint64_t varint() const { return m_number; }  // Varint
  std::int64_t int64() const { return static_cast<std::int64_t>(m_number); }
  double float64() const;                                  // Fixed64 as a double
  float float32() const;                                   // Fixed32 as a float
  std::string_view bytes() const { return m_fieldBytes; }  // Bytes: a string or a message

 private:
  bool readVarint(std::uint64_t& out);

  std::string_view m_bytes;
  std::size_t m_at = 0;
  bool m_failed = false;
  int m_field = 0;
  Wire m_wire = Wire::Varint;
  std::uint64_t m_number = 0;  // Varint, Fixed64 and Fixed32 bits
  std::string_view m_fieldBytes;
};

}  // namespace traindeck
