// The CRCs against their published check values ("123456789"), so that the fixture writers and
// the readers, which share them, cannot agree on a wrong CRC.
#include <gtest/gtest.h>

#include "imports/checksums.h"

namespace traindeck {
namespace {

TEST(Checksums, CheckValues) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);                    // CRC-32C (Castagnoli)
  EXPECT_EQ(crc32Ieee("123456789"), 0xCBF43926u);                 // zlib's crc32
  EXPECT_EQ(crc32Ieee("56789", crc32Ieee("1234")), 0xCBF43926u);  // continued as zlib.crc32(data, seed)
  EXPECT_EQ(crc32c(""), 0u);
  // TFRecord's mask: rotate right 15, add 0xa282ead8.
  const std::uint32_t c = crc32c("123456789");
  EXPECT_EQ(maskedCrc32c("123456789"), ((c >> 15) | (c << 17)) + 0xA282EAD8u);
}

}  // namespace
}  // namespace traindeck
