// Groups (wire types 3 and 4, deprecated since proto2) and field number 0 are malformed here:
// none of the messages read has them.
#include "imports/proto_reader.h"

#include <bit>
#include <cstring>

namespace traindeck {

bool ProtoReader::readVarint(std::uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (m_at >= m_bytes.size()) return false;
    const auto byte = static_cast<unsigned char>(m_bytes[m_at++]);
    out |= static_cast<std::uint64_t>(byte & 0x7Fu) << shift;
    if ((byte & 0x80u) == 0) return true;
  }
  return false;  // more than ten bytes
}

bool ProtoReader::next() {
  if (m_failed || m_at >= m_bytes.size()) return false;
  std::uint64_t tag = 0;
  if (!readVarint(tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1FFFFFFFu) {
    m_failed = true;
    return false;
  }
  m_field = static_cast<int>(tag >> 3);
  const std::size_t left = m_bytes.size() - m_at;
  switch (tag & 7u) {
    case 0:
      m_wire = Wire::Varint;
      if (!readVarint(m_number)) break;
      return true;
    case 1:
      m_wire = Wire::Fixed64;
      if (left < 8) break;
      std::memcpy(&m_number, m_bytes.data() + m_at, 8);  // little-endian hosts only (x86, ARM)
      m_at += 8;
      return true;
    case 2: {
      m_wire = Wire::Bytes;
      std::uint64_t length = 0;
      if (!readVarint(length) || length > m_bytes.size() - m_at) break;
      m_fieldBytes = m_bytes.substr(m_at, static_cast<std::size_t>(length));
      m_at += static_cast<std::size_t>(length);
      return true;
    }
    case 5: {
      m_wire = Wire::Fixed32;
      if (left < 4) break;
      std::uint32_t bits = 0;
      std::memcpy(&bits, m_bytes.data() + m_at, 4);
      m_number = bits;
      m_at += 4;
      return true;
    }
    default:
      break;
  }
  m_failed = true;
  return false;
}

double ProtoReader::float64() const {
  return std::bit_cast<double>(m_number);
}

float ProtoReader::float32() const {
  return std::bit_cast<float>(static_cast<std::uint32_t>(m_number));
}

}  // namespace traindeck
