// The update, with a = apply ∈ {0, 1}: t += a; m ← m + (1−β1)·a·(g − m);
// v ← v + (1−β2)·a·(g² − v); p ← p·(1 − lr·a·wd); p ← p − lr·a·m̂ / (√v̂ + ε), where m̂, v̂ are
// bias-corrected with t (at least 1). With a = 1 this is torch.optim.AdamW exactly.
#include "adamw.h"

#include <stdexcept>

namespace traindeck {

AdamW::AdamW(std::vector<OptimizedParameter> parameters, AdamWSettings settings)
    : m_params(std::move(parameters)), m_settings(settings) {
  for (const OptimizedParameter& p : m_params) {
    m_expAvg.push_back(torch::zeros_like(p.tensor, torch::MemoryFormat::Preserve));
    m_expAvgSq.push_back(torch::zeros_like(p.tensor, torch::MemoryFormat::Preserve));
  }
  const auto device = m_params.empty() ? torch::Device(torch::kCPU) : m_params.front().tensor.device();
  m_step = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
}

void AdamW::step(double lr, const torch::Tensor& apply) {
  torch::NoGradGuard noGrad;
  const auto a = apply.to(torch::kFloat);
  m_step.add_(a);
  const auto t = m_step.clamp_min(1.0);
  const auto correction1 = 1.0 - torch::pow(m_settings.beta1, t);
  const auto correction2 = 1.0 - torch::pow(m_settings.beta2, t);
  const auto stepSize = (a * (-lr)) / correction1;   // −lr·a / (1 − β1ᵗ)
  const auto sqrtCorrection2 = correction2.sqrt();
  const auto decayFactor = 1.0 - a * (lr * m_settings.weightDecay);
  const auto w1 = a * (1.0 - m_settings.beta1);
  const auto w2 = a * (1.0 - m_settings.beta2);
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    torch::Tensor& p = m_params[i].tensor;
    auto g = m_params[i].grad.defined() ? m_params[i].grad : p.grad();
    if (!g.defined()) continue;
    g.nan_to_num_(0.0, 0.0, 0.0);
    m_expAvg[i].lerp_(g, w1);
    m_expAvgSq[i].lerp_(g * g, w2);
    if (m_params[i].decay && m_settings.weightDecay != 0) p.mul_(decayFactor);
    const auto denom = (m_expAvgSq[i].sqrt() / sqrtCorrection2).add_(m_settings.eps);
    p.addcdiv_(m_expAvg[i] * stepSize, denom);
  }
}

std::vector<std::pair<std::string, torch::Tensor>> AdamW::state() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    out.emplace_back("exp_avg/" + m_params[i].name, m_expAvg[i]);
    out.emplace_back("exp_avg_sq/" + m_params[i].name, m_expAvgSq[i]);
  }
  out.emplace_back("step", m_step);
  return out;
}

void AdamW::loadState(const std::map<std::string, torch::Tensor>& tensors) {
  torch::NoGradGuard noGrad;
  const auto take = [&](const std::string& name, torch::Tensor& into) {
    const auto it = tensors.find(name);
    if (it == tensors.end()) throw std::runtime_error("optimizer state has no tensor " + name);
    if (it->second.sizes() != into.sizes())
      throw std::runtime_error("optimizer state tensor " + name + " has the wrong shape for this model");
    into.copy_(it->second);
  };
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    take("exp_avg/" + m_params[i].name, m_expAvg[i]);
    take("exp_avg_sq/" + m_params[i].name, m_expAvgSq[i]);
  }
  take("step", m_step);
}

std::int64_t AdamW::stateBytes() const {
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < m_params.size(); ++i)
    bytes += m_expAvg[i].nbytes() + m_expAvgSq[i].nbytes();
  return bytes;
}

std::vector<OptimizedParameter> AdamW::withDecayOn2dWeights(
    const std::vector<std::pair<std::string, torch::Tensor>>& named) {
  std::vector<OptimizedParameter> out;
  for (const auto& [name, tensor] : named) out.push_back({name, tensor, tensor.dim() >= 2, {}});
  return out;
}

}  // namespace traindeck
