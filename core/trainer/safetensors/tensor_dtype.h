// The element types TrainDeck stores in safetensors files, with their sizes and the names the
// format uses ("F32", "BF16"...). Data is little-endian, rows contiguous (C order).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace traindeck {

enum class TensorDType { F32, F16, BF16, I64, I32, U8 };

constexpr std::size_t dtypeSize(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::F32:
      return 4;
    case TensorDType::F16:
      return 2;
    case TensorDType::BF16:
      return 2;
    case TensorDType::I64:
      return 8;
    case TensorDType::I32:
      return 4;
    case TensorDType::U8:
      return 1;
  }
  return 0;
}

constexpr std::string_view dtypeName(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::F32:
      return "F32";
    case TensorDType::F16:
      return "F16";
    case TensorDType::BF16:
      return "BF16";
    case TensorDType::I64:
      return "I64";
    case TensorDType::I32:
      return "I32";
    case TensorDType::U8:
      return "U8";
  }
  return "?";
}

// The dtype a safetensors header names; nullopt for names TrainDeck does not read (F64, BOOL...).
constexpr std::optional<TensorDType> dtypeFromName(std::string_view name) {
  for (const TensorDType dtype :
       {TensorDType::F32, TensorDType::F16, TensorDType::BF16, TensorDType::I64, TensorDType::I32, TensorDType::U8}) {
    if (dtypeName(dtype) == name) return dtype;
  }
  return std::nullopt;
}

}  // namespace traindeck
