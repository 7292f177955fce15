// Byte sizes are computed with overflow checks: shapes come from untrusted file headers.
#include "trainer/safetensors/tensor_view.h"

#include <algorithm>
#include <cstdint>

namespace traindeck {

std::optional<std::size_t> tensorByteSize(TensorDType dtype, std::span<const std::int64_t> shape) {
  if (std::any_of(shape.begin(), shape.end(), [](std::int64_t dim) { return dim < 0; })) return std::nullopt;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;  // empty, whatever the other sizes
  std::size_t bytes = dtypeSize(dtype);
  for (const std::int64_t dim : shape) {
    const auto n = static_cast<std::uint64_t>(dim);
    if (n > SIZE_MAX / bytes) return std::nullopt;
    bytes *= static_cast<std::size_t>(n);
  }
  return bytes;
}

std::string shapeText(std::span<const std::int64_t> shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace traindeck
