// F32 <-> BF16 and F32 <-> F16: edge values written out, every 16-bit pattern round-tripped,
// and random floats checked against rounding done independently in double arithmetic (and,
// where the compiler has _Float16, against its conversions).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "trainer/safetensors/dtype_convert.h"

namespace traindeck {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::uint32_t bitsOf(float f) {
  return std::bit_cast<std::uint32_t>(f);
}

// x rounded to nearest even on a grid with `mantissaBits` stored bits whose smallest exponent
// is `minExponent`; the rounding itself is the FPU's (nearbyint in the default mode).
float roundToFormat(float x, int mantissaBits, int minExponent, double largest) {
  if (x == 0 || !std::isfinite(x)) return x;
  int exponent = 0;
  std::frexp(static_cast<double>(x), &exponent);  // |x| = m * 2^exponent, m in [0.5, 1)
  const int step = std::max(exponent - 1, minExponent) - mantissaBits;
  const double rounded = std::ldexp(std::nearbyint(std::ldexp(static_cast<double>(x), -step)), step);
  // Past the largest finite value plus half an ulp: infinity (it only can be, by a tie or more).
  if (std::fabs(rounded) > largest) return std::copysign(kInf, x);
  return static_cast<float>(rounded) == 0 ? std::copysign(0.0f, x) : static_cast<float>(rounded);
}

float referenceHalf(float x) {
  return roundToFormat(x, 10, -14, 65504.0);
}
float referenceBf16(float x) {
  return roundToFormat(x, 7, -126, 3.3895313892515355e38);
}

TEST(DTypeConvert, HalfKnownValues) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0xC000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x7C00), kInf);
  EXPECT_EQ(halfToFloat(0xFC00), -kInf);
  EXPECT_EQ(bitsOf(halfToFloat(0x8000)), 0x80000000u);  // -0
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7C01)));  // signalling NaN stays a NaN
}

TEST(DTypeConvert, FloatToHalfEdges) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.996f), 0x7BFF);  // just under the tie: down to the largest half
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);    // the tie goes to even, which is infinity
  EXPECT_EQ(floatToHalf(-1e6f), 0xFC00);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(floatToHalf(kInf), 0x7C00);
  EXPECT_EQ(floatToHalf(-kInf), 0xFC00);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie: stays on even 1.0
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie: up to even
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.1f, -11)), 0x3C01);      // past the tie
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 1: 0
  EXPECT_EQ(floatToHalf(std::ldexp(1.0001f, -25)), 0x0001);
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -26)), 0x8000);    // underflow keeps the sign
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);     // tie between 1 and 2: 2
  EXPECT_EQ(floatToHalf(std::ldexp(2047.0f, -25)), 0x0400);  // largest subnormal + half: normal
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  const std::uint16_t nan = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::quiet_NaN()) & 0x8000, 0x8000);
  // A NaN whose payload sits only in bits a half drops still comes out a NaN.
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(std::bit_cast<float>(0x7F800001u)))));
}

TEST(DTypeConvert, Bf16Edges) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(floatToBf16(-2.5f), 0xC020);
  EXPECT_EQ(floatToBf16(-0.0f), 0x8000);
  EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // tie: even stays
  EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);  // tie: odd goes up
  EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x3F808001u)), 0x3F81);  // past the tie
  EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x3F807FFFu)), 0x3F80);
  EXPECT_EQ(floatToBf16(std::numeric_limits<float>::max()), 0x7F80);  // rounds up to infinity
  EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x7F7F7FFFu)), 0x7F7F);  // largest bf16 stays
  EXPECT_EQ(floatToBf16(kInf), 0x7F80);
  EXPECT_EQ(floatToBf16(-kInf), 0xFF80);
  EXPECT_EQ(floatToBf16(std::numeric_limits<float>::denorm_min()), 0x0000);  // 2^-149 rounds to 0
  EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x00018000u)), 0x0002);         // subnormal tie: up
  EXPECT_EQ(bf16ToFloat(0x0001), std::ldexp(1.0f, -133));
  const std::uint16_t nan = floatToBf16(std::bit_cast<float>(0x7F800001u));  // payload below bf16
  EXPECT_TRUE(std::isnan(bf16ToFloat(nan)));
  EXPECT_EQ(floatToBf16(std::bit_cast<float>(0xFFC00000u)), 0xFFC0);
}

TEST(DTypeConvert, EveryHalfRoundTrips) {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float f = halfToFloat(static_cast<std::uint16_t>(h));
    const std::uint16_t back = floatToHalf(f);
    if ((h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_EQ(back, h | 0x0200) << h;  // the payload kept, the quiet bit set
    } else {
      ASSERT_EQ(back, h) << h;
    }
  }
}

TEST(DTypeConvert, EveryBf16RoundTrips) {
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const float f = bf16ToFloat(static_cast<std::uint16_t>(b));
    ASSERT_EQ(bitsOf(f), b << 16);
    const std::uint16_t back = floatToBf16(f);
    if ((b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0) {
      ASSERT_EQ(back, b | 0x0040) << b;
    } else {
      ASSERT_EQ(back, b) << b;
    }
  }
}

std::vector<float> sampleFloats() {
  std::vector<float> floats;
  std::mt19937 random(65504);
  for (int i = 0; i < 300000; ++i) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
    if (!std::isnan(f)) floats.push_back(f);
  }
  // Dense around the half's interesting range: subnormals, ties, the top of the range.
  for (int i = 0; i < 300000; ++i) {
    const std::uint32_t bits = 0x32800000u + static_cast<std::uint32_t>(random() % (0x47900000u - 0x32800000u));
    floats.push_back(std::bit_cast<float>(bits ^ (random() & 1 ? 0x80000000u : 0)));
  }
  return floats;
}

TEST(DTypeConvert, FloatToHalfRoundsToNearestEven) {
  for (const float x : sampleFloats()) {
    const float expected = referenceHalf(x);
    const float got = halfToFloat(floatToHalf(x));
    ASSERT_EQ(bitsOf(got), bitsOf(expected)) << "x = " << x << " (bits " << std::hex << bitsOf(x) << ")";
  }
}

TEST(DTypeConvert, FloatToBf16RoundsToNearestEven) {
  for (const float x : sampleFloats()) {
    const float expected = referenceBf16(x);
    const float got = bf16ToFloat(floatToBf16(x));
    ASSERT_EQ(bitsOf(got), bitsOf(expected)) << "x = " << x << " (bits " << std::hex << bitsOf(x) << ")";
  }
}

#ifdef __FLT16_MAX__
TEST(DTypeConvert, AgreesWithTheCompilersFloat16) {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float ours = halfToFloat(static_cast<std::uint16_t>(h));
    const auto theirs = static_cast<float>(std::bit_cast<_Float16>(static_cast<std::uint16_t>(h)));
    if (std::isnan(theirs)) {
      ASSERT_TRUE(std::isnan(ours));
    } else {
      ASSERT_EQ(bitsOf(ours), bitsOf(theirs)) << h;
    }
  }
  for (const float x : sampleFloats()) {
    ASSERT_EQ(floatToHalf(x), std::bit_cast<std::uint16_t>(static_cast<_Float16>(x))) << x;
  }
}
#endif

TEST(DTypeConvert, BulkConversionsHandleUnalignedBuffers) {
  const std::vector<float> values = {1.0f, -2.5f, 0.15625f, 65504.0f, std::ldexp(1.0f, -24)};
  for (const TensorDType dtype : {TensorDType::F32, TensorDType::F16, TensorDType::BF16}) {
    std::vector<unsigned char> buffer(1 + values.size() * dtypeSize(dtype));
    convertFromFloat(values.data(), dtype, buffer.data() + 1, values.size());  // odd address
    std::vector<float> back(values.size());
    convertToFloat(dtype, buffer.data() + 1, back.data(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float expected = dtype == TensorDType::F32   ? values[i]
                             : dtype == TensorDType::F16 ? halfToFloat(floatToHalf(values[i]))
                                                         : bf16ToFloat(floatToBf16(values[i]));
      EXPECT_EQ(back[i], expected) << dtypeName(dtype) << " " << i;
    }
  }
  std::uint16_t one = 0;
  convertFromFloat(values.data(), TensorDType::BF16, &one, 1);
  EXPECT_EQ(one, 0x3F80);
  convertToFloat(TensorDType::F16, nullptr, nullptr, 0);  // nothing to do, nothing touched
}

TEST(DTypeConvert, IntegerTypesAreRefused) {
  float f = 0;
  std::int64_t i = 0;
  EXPECT_THROW(convertToFloat(TensorDType::I64, &i, &f, 1), std::invalid_argument);
  EXPECT_THROW(convertFromFloat(&f, TensorDType::U8, &i, 1), std::invalid_argument);
  try {
    convertToFloat(TensorDType::I32, &i, &f, 0);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "cannot convert I32 data to or from floats: only F32, F16 and BF16 are floating point");
  }
}

}  // namespace
}  // namespace traindeck
