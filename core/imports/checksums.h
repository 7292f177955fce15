// The two CRC-32s the binary formats use: CRC-32C (Castagnoli), masked as TFRecord stores it,
// and zlib's CRC-32 (IEEE), which W&B's .wandb files use over a chunk's type byte and data.
#pragma once

#include <cstdint>
#include <string_view>

namespace traindeck {

std::uint32_t crc32c(std::string_view bytes);
// TFRecord's mask: rotate right by 15 and add a constant, so a CRC over bytes that hold CRCs
// does not degenerate.
std::uint32_t maskedCrc32c(std::string_view bytes);
// zlib.crc32(bytes, seed): continues a CRC-32 (IEEE) from `seed` (0 to start).
std::uint32_t crc32Ieee(std::string_view bytes, std::uint32_t seed = 0);

}  // namespace traindeck
