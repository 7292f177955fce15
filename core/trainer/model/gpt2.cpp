// GPT-2 forward pass and initialisation. Shapes: B batch, T time, C width, H heads,
// hs = C / H head size, V vocabulary.
#include "gpt2.h"

#include <cmath>

#include "activation_checkpoint.h"
#include "lm_head_loss.h"
#include "trainer/torch_compat.h"

namespace traindeck {

Conv1DImpl::Conv1DImpl(int64_t in, int64_t out) {
  weight = register_parameter("weight", torch::empty({in, out}));
  bias = register_parameter("bias", torch::zeros({out}));
}

torch::Tensor Conv1DImpl::forward(const torch::Tensor& x) {
  auto shape = x.sizes().vec();
  shape.back() = weight.size(1);
  return torch::addmm(bias, x.reshape({-1, x.size(-1)}), weight).view(shape);
}

CausalSelfAttentionImpl::CausalSelfAttentionImpl(const ModelConfig& config)
    : m_heads(config.n_head), m_dropout(config.dropout) {
  c_attn = register_module("c_attn", Conv1D(config.n_embd, 3 * config.n_embd));
  c_proj = register_module("c_proj", Conv1D(config.n_embd, config.n_embd));
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t B = x.size(0), T = x.size(1), C = x.size(2);
  const auto qkv = c_attn(x).split(C, 2);  // 3 x (B, T, C)
  auto heads = [&](const torch::Tensor& t) { return t.view({B, T, m_heads, C / m_heads}).transpose(1, 2); };
  auto y = compat::causalAttention(heads(qkv[0]), heads(qkv[1]), heads(qkv[2]),
                                   is_training() ? m_dropout : 0.0);  // (B, H, T, hs)
  y = y.transpose(1, 2).contiguous().view({B, T, C});
  return torch::dropout(c_proj(y), m_dropout, is_training());
}

MlpImpl::MlpImpl(const ModelConfig& config) : m_dropout(config.dropout) {
  c_fc = register_module("c_fc", Conv1D(config.n_embd, 4 * config.n_embd));
  c_proj = register_module("c_proj", Conv1D(4 * config.n_embd, config.n_embd));
}

torch::Tensor MlpImpl::forward(const torch::Tensor& x) {
  const auto hidden = torch::gelu(c_fc(x), "tanh");  // (B, T, 4C)
  return torch::dropout(c_proj(hidden), m_dropout, is_training());
}

BlockImpl::BlockImpl(const ModelConfig& config) {
  const auto norm = torch::nn::LayerNormOptions({config.n_embd}).eps(1e-5);
  ln_1 = register_module("ln_1", torch::nn::LayerNorm(norm));
  attn = register_module("attn", CausalSelfAttention(config));
  ln_2 = register_module("ln_2", torch::nn::LayerNorm(norm));
  mlp = register_module("mlp", Mlp(config));
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x) {
  const auto y = x + attn(ln_1(x));
  return y + mlp(ln_2(y));
}

TransformerImpl::TransformerImpl(const ModelConfig& config) {
  wte = register_module("wte", torch::nn::Embedding(config.vocab_size, config.n_embd));
  wpe = register_module("wpe", torch::nn::Embedding(config.n_positions, config.n_embd));
  h = register_module("h", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.n_layer; ++i) h->push_back(Block(config));
  ln_f = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({config.n_embd}).eps(1e-5)));
}

Gpt2Impl::Gpt2Impl(const ModelConfig& config, bool initialise) : m_config(config) {
  transformer = register_module("transformer", Transformer(config));
  if (initialise) initWeights();
}

torch::Tensor Gpt2Impl::embed(const torch::Tensor& idx) {
  return embedTokens(idx, /*sparseGradient=*/false, /*tied=*/nullptr);
}

torch::Tensor Gpt2Impl::embedTokens(const torch::Tensor& idx, bool sparseGradient, TiedGradient* tied) {
  const int64_t T = idx.size(1);
  TORCH_CHECK(T <= m_config.n_positions, "sequence of ", T, " tokens is longer than the model's ", m_config.n_positions,
              " positions");
  const auto positions = torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(idx.device()));
  const auto& weight = transformer->wte->weight;
  const auto tokens = tied != nullptr ? tiedTokenLookup(weight, idx, tied)
                                      : torch::embedding(weight, idx, /*padding_idx=*/-1,
                                                         /*scale_grad_by_freq=*/false, sparseGradient);
  const auto x = tokens + transformer->wpe(positions);  // (B, T, C)
  return torch::dropout(x, m_config.dropout, is_training());
}

torch::Tensor Gpt2Impl::runBlocks(torch::Tensor x) {
  for (const auto& block : *transformer->h) {
    BlockImpl* b = block->as<Block>();
    x = m_checkpointing && is_training() && torch::GradMode::is_enabled() ? checkpointedForward(*b, x) : b->forward(x);
  }
  return x;
}

torch::Tensor Gpt2Impl::hidden(const torch::Tensor& idx) {
  return transformer->ln_f(runBlocks(embed(idx)));
}

torch::Tensor Gpt2Impl::headLoss(const torch::Tensor& x, const torch::Tensor& targets) {
  return headLoss(x, targets, /*tied=*/nullptr);
}

torch::Tensor Gpt2Impl::headLoss(const torch::Tensor& x, const torch::Tensor& targets, TiedGradient* tied) {
  const auto normed = transformer->ln_f(x);  // (B, T, C)
  return lmHeadLoss(normed.view({-1, normed.size(-1)}), transformer->wte->weight, targets.reshape({-1}),
                    &m_logitsScratch, /*chunkRows=*/0, tied);
}

torch::Tensor Gpt2Impl::forward(const torch::Tensor& idx) {
  return torch::matmul(hidden(idx), transformer->wte->weight.t());  // (B, T, V)
}

// The tied weight's gradient: the output layer's, a dense (V, C) block, comes first; the
// lookup's touches only the rows of the batch's tokens. A dense lookup gradient would be a
// zero-filled (V, C) block with those rows set, and then a (V, C) sum: two passes over the 51 MB
// of GPT-2's vocabulary each step. On the CPU the lookup's rows go straight into the output
// layer's block (TiedGradient); elsewhere the lookup's gradient is sparse, which autograd adds
// (LibTorch 2.x copying the dense block first). wte.grad is dense either way.
torch::Tensor Gpt2Impl::loss(const torch::Tensor& idx, const torch::Tensor& targets) {
  m_tiedGradient.dense = torch::Tensor();  // a backward that never reached the lookup left it
  TiedGradient* tied = transformer->wte->weight.is_cpu() ? &m_tiedGradient : nullptr;
  return headLoss(runBlocks(embedTokens(idx, /*sparseGradient=*/tied == nullptr, tied)), targets, tied);
}

void Gpt2Impl::initWeights() {
  torch::NoGradGuard noGrad;
  const double residualStd = 0.02 / std::sqrt(2.0 * static_cast<double>(m_config.n_layer));
  for (auto& item : named_parameters()) {
    const std::string& name = item.key();
    torch::Tensor& p = item.value();
    if (name.ends_with(".bias")) {
      p.zero_();
    } else if (name.find(".ln_") != std::string::npos) {
      p.fill_(1.0);
    } else if (name.ends_with("c_proj.weight")) {
      p.normal_(0.0, residualStd);
    } else {
      p.normal_(0.0, 0.02);  // wte, wpe, c_attn, c_fc
    }
  }
}

std::vector<std::pair<std::string, torch::Tensor>> Gpt2Impl::namedWeights() {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : named_parameters()) out.emplace_back(item.key(), item.value());
  return out;
}

int64_t Gpt2Impl::parameterCount() {
  int64_t count = 0;
  for (const auto& p : parameters()) count += p.numel();
  return count;
}

}  // namespace traindeck
