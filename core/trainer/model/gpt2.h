// GPT-2 as a LibTorch module whose parameter names and layouts are Hugging Face's
// (transformer.h.0.attn.c_attn.weight in Conv1D's (in, out) layout), so weights load and save
// without renaming. lm_head is tied to the token embedding.
#pragma once

#include <torch/torch.h>

#include "config/run_config.h"
#include "lm_head_loss.h"

namespace traindeck {

// y = x·W + b with W stored (in, out), as GPT-2's Conv1D.
class Conv1DImpl : public torch::nn::Module {
 public:
  Conv1DImpl(int64_t in, int64_t out);
  torch::Tensor forward(const torch::Tensor& x);  // (..., in) -> (..., out)
  torch::Tensor weight, bias;
};
TORCH_MODULE(Conv1D);

class CausalSelfAttentionImpl : public torch::nn::Module {
 public:
  explicit CausalSelfAttentionImpl(const ModelConfig& config);
  torch::Tensor forward(const torch::Tensor& x);  // (B, T, C) -> (B, T, C)
  Conv1D c_attn{nullptr}, c_proj{nullptr};

 private:
  int64_t m_heads;
  double m_dropout;
};
TORCH_MODULE(CausalSelfAttention);

class MlpImpl : public torch::nn::Module {
 public:
  explicit MlpImpl(const ModelConfig& config);
  torch::Tensor forward(const torch::Tensor& x);  // (B, T, C) -> (B, T, C)
  Conv1D c_fc{nullptr}, c_proj{nullptr};

 private:
  double m_dropout;
};
TORCH_MODULE(Mlp);

class BlockImpl : public torch::nn::Module {
 public:
  explicit BlockImpl(const ModelConfig& config);
  torch::Tensor forward(const torch::Tensor& x);  // (B, T, C) -> (B, T, C)
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  CausalSelfAttention attn{nullptr};
  Mlp mlp{nullptr};
};
TORCH_MODULE(Block);

// The `transformer` submodule: embeddings, blocks, final LayerNorm.
class TransformerImpl : public torch::nn::Module {
 public:
  explicit TransformerImpl(const ModelConfig& config);
  torch::nn::Embedding wte{nullptr}, wpe{nullptr};
  torch::nn::ModuleList h{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};
};
TORCH_MODULE(Transformer);

class Gpt2Impl : public torch::nn::Module {
 public:
  // `initialise` false leaves the weights uninitialised (to be loaded, or only counted).
  explicit Gpt2Impl(const ModelConfig& config, bool initialise = true);

  // Final hidden states for token ids (B, T): (B, T, C).
  torch::Tensor hidden(const torch::Tensor& idx);
  // Logits (B, T, V) for token ids (B, T).
  torch::Tensor forward(const torch::Tensor& idx);
  // Mean next-token cross-entropy of targets (B, T) given idx (B, T), as a 0-dim tensor.
  torch::Tensor loss(const torch::Tensor& idx, const torch::Tensor& targets);
  // The stages of loss(), for zero3, which runs them one by one: token and position embeddings
  // with dropout, (B, T) -> (B, T, C); then each transformer->h block; then the final LayerNorm
  // and the tied output layer's mean loss, (B, T, C) and targets (B, T) -> 0-dim.
  torch::Tensor embed(const torch::Tensor& idx);
  torch::Tensor headLoss(const torch::Tensor& x, const torch::Tensor& targets);

  // Recompute each block's activations in the backward pass instead of keeping them (training
  // only): memory for one block's activations instead of all, for a second forward pass.
  void setActivationCheckpointing(bool on) { m_checkpointing = on; }

  // GPT-2's initialisation: N(0, 0.02), residual projections N(0, 0.02/sqrt(2·n_layer)),
  // zero biases, unit LayerNorms. Uses the global generator: seed it first.
  void initWeights();
  // Parameters with their Hugging Face names; the tied lm_head appears once, as wte.
  std::vector<std::pair<std::string, torch::Tensor>> namedWeights();
  int64_t parameterCount();
  const ModelConfig& config() const { return m_config; }

  Transformer transformer{nullptr};

 private:
  torch::Tensor runBlocks(torch::Tensor x);  // (B, T, C) through every block
  // embed(), with the token lookup's gradient added into the output layer's (`tied`, loss() on
  // the CPU: see there), sparse (loss() elsewhere) or dense.
  torch::Tensor embedTokens(const torch::Tensor& idx, bool sparseGradient, TiedGradient* tied);
  torch::Tensor headLoss(const torch::Tensor& x, const torch::Tensor& targets, TiedGradient* tied);
  ModelConfig m_config;
  bool m_checkpointing = false;
  torch::Tensor m_logitsScratch;  // the output layer's logits block, reused each step (lm_head_loss.h)
  TiedGradient m_tiedGradient;    // between the output layer's backward and the lookup's (loss())
};
TORCH_MODULE(Gpt2);

}  // namespace traindeck
