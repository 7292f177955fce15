// Hugging Face GPT-2 weights in and out: config.json (GPT2Config) and model.safetensors with
// `transformer.`-prefixed names (GPT2LMHeadModel). Reading also takes GPT2Model files without
// the prefix, F16/BF16 weights, and ignores the attention-mask buffers older files carry.
#pragma once

#include <map>
#include <string>

#include "config/run_config.h"
#include "gpt2.h"

namespace traindeck {

// Copies every weight of `model` from `path` (a model.safetensors, or a folder holding one).
void loadHuggingFaceWeights(Gpt2& model, const std::string& path);
// Copies every weight of `model` from `stored` (read from `source`, named in messages); a
// missing or misshapen weight throws std::runtime_error saying which.
void copyWeights(Gpt2& model, const std::map<std::string, torch::Tensor>& stored, const std::string& source);
// Throws as copyWeights would, copying nothing (zero3's model holds no weights to copy into).
void checkWeights(Gpt2& model, const std::map<std::string, torch::Tensor>& stored, const std::string& source);

// The sizes in a Hugging Face config.json (n_layer, n_head, n_embd, n_positions, vocab_size).
ModelConfig readHuggingFaceConfig(const std::string& configJsonPath);

// config.json text for `model`; eos/bos are the tokenizer's end-of-text id.
std::string huggingFaceConfigJson(const ModelConfig& model, std::int64_t endOfText);

}  // namespace traindeck
