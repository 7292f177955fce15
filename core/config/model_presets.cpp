// GPT-2 sizes from the released checkpoints (OpenAI's gpt-2 repository, Hugging Face configs).
#include "model_presets.h"

namespace traindeck {

namespace {
constexpr ModelPreset kPresets[] = {
    {"gpt2", 12, 12, 768, 1024, 50257},
    {"gpt2-medium", 24, 16, 1024, 1024, 50257},
    {"gpt2-large", 36, 20, 1280, 1024, 50257},
    {"gpt2-xl", 48, 25, 1600, 1024, 50257},
};
}  // namespace

std::span<const ModelPreset> modelPresets() { return kPresets; }

const ModelPreset* findModelPreset(std::string_view name) {
  for (const ModelPreset& p : kPresets)
    if (p.name == name) return &p;
  return nullptr;
}

void applyModelPreset(const ModelPreset& preset, ModelConfig& model) {
  model.preset = std::string(preset.name);
  model.n_layer = preset.n_layer;
  model.n_head = preset.n_head;
  model.n_embd = preset.n_embd;
  model.n_positions = preset.n_positions;
  model.block_size = preset.n_positions;
  model.vocab_size = preset.vocab_size;
}

std::string modelPresetChoices() {
  std::string out;
  const std::size_t n = std::size(kPresets);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += i + 1 == n ? " or " : ", ";
    out += kPresets[i].name;
  }
  return out;
}

}  // namespace traindeck
