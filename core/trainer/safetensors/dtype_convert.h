// F32 <-> BF16 and F32 <-> F16 (IEEE 754 half) without LibTorch, for checkpoints and exports:
// round to nearest even, subnormals kept, overflow to infinity, NaN stays a (quiet) NaN.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trainer/safetensors/tensor_dtype.h"

namespace traindeck {

float bf16ToFloat(std::uint16_t bits);
std::uint16_t floatToBf16(float value);
float halfToFloat(std::uint16_t bits);
std::uint16_t floatToHalf(float value);

// `count` elements of dtype `from` (F32, F16 or BF16) at `src` into floats. `src` may be
// unaligned, as tensor data in a file from another writer can be.
// Throws std::invalid_argument for any other dtype.
void convertToFloat(TensorDType from, const void* src, float* dst, std::size_t count);
// `count` floats into dtype `to` (F32, F16 or BF16) at `dst`, which may be unaligned.
// Throws std::invalid_argument for any other dtype.
void convertFromFloat(const float* src, TensorDType to, void* dst, std::size_t count);

}  // namespace traindeck
