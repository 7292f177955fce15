// The published GPT-2 sizes, by their Hugging Face names, so `model.preset: gpt2-xl` means
// exactly what people expect.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "run_config.h"

namespace traindeck {

struct ModelPreset {
  std::string_view name;
  std::int64_t n_layer;
  std::int64_t n_head;
  std::int64_t n_embd;
  std::int64_t n_positions;
  std::int64_t vocab_size;
};

std::span<const ModelPreset> modelPresets();
const ModelPreset* findModelPreset(std::string_view name);
// Sets the preset's sizes (block_size to the full n_positions) and the preset name.
void applyModelPreset(const ModelPreset& preset, ModelConfig& model);
// "gpt2, gpt2-medium, gpt2-large or gpt2-xl"
std::string modelPresetChoices();

}  // namespace traindeck
