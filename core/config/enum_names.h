// The YAML spelling of every enum in RunConfig, in one table per enum, used both ways.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "run_config.h"

namespace traindeck {

template <class E>
using EnumNames = std::span<const std::pair<E, std::string_view>>;

template <class E>
EnumNames<E> enumNames();  // specialised for each enum of run_config.h, in enum_names.cpp

template <> EnumNames<StrategyKind> enumNames();
template <> EnumNames<DeviceKind> enumNames();
template <> EnumNames<Backend> enumNames();
template <> EnumNames<Precision> enumNames();
template <> EnumNames<Decay> enumNames();
template <> EnumNames<TokenizerKind> enumNames();
template <> EnumNames<OptimizerKind> enumNames();
template <> EnumNames<TargetKind> enumNames();
template <> EnumNames<SlurmBuild> enumNames();

template <class E>
std::string_view toString(E value) {
  for (const auto& [v, name] : enumNames<E>())
    if (v == value) return name;
  return "?";
}

template <class E>
std::optional<E> enumFromString(std::string_view text) {
  for (const auto& [v, name] : enumNames<E>())
    if (name == text) return v;
  return std::nullopt;
}

// "cosine, linear or constant"
template <class E>
std::string enumChoices() {
  std::string out;
  const auto names = enumNames<E>();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i].second;
  }
  return out;
}

}  // namespace traindeck
