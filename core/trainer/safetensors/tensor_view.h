// A tensor in host memory that the safetensors reader and writer pass around without copying:
// its name, element type, shape and bytes. The view owns nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trainer/safetensors/tensor_dtype.h"

namespace traindeck {

struct TensorView {
  std::string name;
  TensorDType dtype = TensorDType::F32;
  std::vector<std::int64_t> shape;  // empty for a 0-dim scalar (one element)
  const void* data = nullptr;       // byteSize bytes, little-endian, C order; may be unaligned
  std::size_t byteSize = 0;
};

// The elements of `shape` times the dtype's size; nullopt when a dimension is negative or the
// product does not fit in size_t.
std::optional<std::size_t> tensorByteSize(TensorDType dtype, std::span<const std::int64_t> shape);

// "[2, 3]", for messages.
std::string shapeText(std::span<const std::int64_t> shape);

}  // namespace traindeck
