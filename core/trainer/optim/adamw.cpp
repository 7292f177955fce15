// The update, with a = apply ∈ {0, 1}: t += a; m ← m + (1−β1)·a·(g − m);
// v ← v + (1−β2)·a·(g² − v); p ← p·(1 − lr·a·wd); p ← p − lr·a·m̂ / (√v̂ + ε), where m̂, v̂ are
// bias-corrected with t (at least 1). With a = 1 this is torch.optim.AdamW exactly.
#include "adamw.h"
#include "adamw_kernel.h"

#include <ATen/Parallel.h>

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

namespace {

bool fusable(const torch::Tensor& p, const torch::Tensor& g, const torch::Tensor& m, const torch::Tensor& v) {
  for (const torch::Tensor* t : {&p, &g, &m, &v})
    if (!t->device().is_cpu() || t->scalar_type() != torch::kFloat || !t->is_contiguous()) return false;
  return g.numel() == p.numel();
}

// The whole update of one parameter in one pass over its four arrays (the tensor-op version
// makes about 25 passes; on a CPU the optimizer is memory-bound, so this is ~3x faster), in
// vector instructions (adamw_kernel.h). Element by element it does the tensor version's
// arithmetic in the same order.
void fusedUpdate(float* p, float* g, float* m, float* v, std::int64_t n, const AdamWFactors& f, bool decay) {
  at::parallel_for(0, n, 1 << 15,
                   [&](std::int64_t begin, std::int64_t end) { adamwUpdateRange(p, g, m, v, begin, end, f, decay); });
}

}  // namespace

void AdamW::step(double lr, const torch::Tensor& apply) {
  torch::NoGradGuard noGrad;
  const auto a = apply.to(torch::kFloat);
  m_step.add_(a);
  const auto t = m_step.clamp_min(1.0);
  const auto correction1 = 1.0 - torch::pow(m_settings.beta1, t);
  const auto correction2 = 1.0 - torch::pow(m_settings.beta2, t);
  const auto stepSize = (a * (-lr)) / correction1;  // −lr·a / (1 − β1ᵗ)
  const auto sqrtCorrection2 = correction2.sqrt();
  const auto decayFactor = 1.0 - a * (lr * m_settings.weightDecay);
  const auto w1 = a * (1.0 - m_settings.beta1);
  const auto w2 = a * (1.0 - m_settings.beta2);
  // On the CPU the factors can be read without a device sync, and the update fused.
  const bool onCpu = m_step.device().is_cpu();
  const AdamWFactors host = onCpu ? AdamWFactors{w1.item<float>(),
                                                 w2.item<float>(),
                                                 decayFactor.item<float>(),
                                                 stepSize.item<float>(),
                                                 sqrtCorrection2.item<float>(),
                                                 static_cast<float>(m_settings.eps)}
                                  : AdamWFactors{};
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    torch::Tensor& p = m_params[i].tensor;
    auto g = m_params[i].grad.defined() ? m_params[i].grad : p.grad();
    if (!g.defined()) continue;
    const bool decay = m_params[i].decay && m_settings.weightDecay != 0;
    if (onCpu && fusable(p, g, m_expAvg[i], m_expAvgSq[i])) {
      fusedUpdate(p.data_ptr<float>(), g.data_ptr<float>(), m_expAvg[i].data_ptr<float>(),
                  m_expAvgSq[i].data_ptr<float>(), p.numel(), host, decay);
      continue;
    }
    g.nan_to_num_(0.0, 0.0, 0.0);
    m_expAvg[i].lerp_(g, w1);
    m_expAvgSq[i].lerp_(g * g, w2);
    if (decay) p.mul_(decayFactor);
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

void AdamW::loadWholeStateTensor(const std::string& name, const torch::Tensor& whole) {
  torch::NoGradGuard noGrad;
  torch::Tensor into = name == "step" ? m_step : torch::Tensor();
  for (std::size_t i = 0; i < m_params.size() && !into.defined(); ++i) {
    if (name == "exp_avg/" + m_params[i].name) into = m_expAvg[i];
    if (name == "exp_avg_sq/" + m_params[i].name) into = m_expAvgSq[i];
  }
  if (!into.defined()) throw std::runtime_error("this model's optimizer state has no tensor " + name);
  if (whole.sizes() != into.sizes())
    throw std::runtime_error("optimizer state tensor " + name + " has the wrong shape for this model");
  into.copy_(whole);
}

std::int64_t AdamW::stateBytes() const {
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < m_params.size(); ++i) bytes += m_expAvg[i].nbytes() + m_expAvgSq[i].nbytes();
  return bytes;
}

std::vector<OptimizedParameter> AdamW::withDecayOn2dWeights(
    const std::vector<std::pair<std::string, torch::Tensor>>& named) {
  std::vector<OptimizedParameter> out;
  for (const auto& [name, tensor] : named) out.push_back({name, tensor, tensor.dim() >= 2, {}});
  return out;
}

}  // namespace traindeck
