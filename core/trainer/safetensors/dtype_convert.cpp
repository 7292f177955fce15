// Bit-level conversions on the IEEE encodings. Rounding adds just under half an ulp plus the
// kept lowest bit, which rounds ties to even; a carry out of the mantissa correctly bumps the
// exponent, up to infinity.
#include "trainer/safetensors/dtype_convert.h"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

namespace traindeck {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

float bf16ToFloat(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t floatToBf16(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);  // NaN: keep sign and top payload, set quiet
  }
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

float halfToFloat(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  std::uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return std::bit_cast<float>(sign);  // +-0
  // Subnormal: shift the leading 1 up to the implicit bit, lowering the exponent from 2^-14.
  std::uint32_t floatExponent = 127 - 14;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --floatExponent;
  }
  return std::bit_cast<float>(sign | (floatExponent << 23) | ((mantissa & 0x3FFu) << 13));
}

std::uint16_t floatToHalf(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) {
    return static_cast<std::uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));  // quiet NaN
  }
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // 65520 and up round to infinity
  if (magnitude >= 0x38800000u) {                       // 2^-14 and up: a normal half
    const std::uint32_t kept = ((magnitude >> 13) - (112u << 10));
    const std::uint32_t rest = magnitude & 0x1FFFu;
    const std::uint32_t roundUp = rest > 0x1000u || (rest == 0x1000u && (kept & 1u)) ? 1 : 0;
    return static_cast<std::uint16_t>(sign | (kept + roundUp));
  }
  if (magnitude <= 0x33000000u) return sign;  // up to 2^-25, half the smallest subnormal: ties to 0
  // Subnormal: the value in units of 2^-24 is the 24-bit mantissa shifted right.
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
  const std::uint32_t shift = 126 - exponent;  // 14..24
  const std::uint32_t kept = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  const std::uint32_t roundUp = rest > half || (rest == half && (kept & 1u)) ? 1 : 0;
  return static_cast<std::uint16_t>(sign | (kept + roundUp));
}

namespace {

[[noreturn]] void notAFloatType(TensorDType dtype) {
  throw std::invalid_argument("cannot convert " + std::string(dtypeName(dtype)) +
                              " data to or from floats: only F32, F16 and BF16 are floating point");
}

}  // namespace

void convertToFloat(TensorDType from, const void* src, float* dst, std::size_t count) {
  if (from != TensorDType::F32 && from != TensorDType::F16 && from != TensorDType::BF16) notAFloatType(from);
  if (count == 0) return;
  const auto* bytes = static_cast<const unsigned char*>(src);
  switch (from) {
    case TensorDType::F32:
      std::memcpy(dst, src, count * sizeof(float));
      return;
    case TensorDType::F16:
    case TensorDType::BF16:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, bytes + 2 * i, sizeof bits);
        dst[i] = from == TensorDType::F16 ? halfToFloat(bits) : bf16ToFloat(bits);
      }
      return;
    default:
      notAFloatType(from);
  }
}

void convertFromFloat(const float* src, TensorDType to, void* dst, std::size_t count) {
  if (to != TensorDType::F32 && to != TensorDType::F16 && to != TensorDType::BF16) notAFloatType(to);
  if (count == 0) return;
  auto* bytes = static_cast<unsigned char*>(dst);
  switch (to) {
    case TensorDType::F32:
      std::memcpy(dst, src, count * sizeof(float));
      return;
    case TensorDType::F16:
    case TensorDType::BF16:
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint16_t bits = to == TensorDType::F16 ? floatToHalf(src[i]) : floatToBf16(src[i]);
        std::memcpy(bytes + 2 * i, &bits, sizeof bits);
      }
      return;
    default:
      notAFloatType(to);
  }
}

}  // namespace traindeck
