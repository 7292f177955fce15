#include "loss_scaler.h"

namespace traindeck {

LossScaler::LossScaler(const torch::Device& device, double initialScale, std::int64_t growthInterval)
    : m_scale(torch::full({}, initialScale, torch::TensorOptions().dtype(torch::kFloat).device(device))),
      m_finiteSteps(torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device))),
      m_growthInterval(growthInterval) {}

torch::Tensor LossScaler::scaled(const torch::Tensor& loss) const {
  return loss * m_scale.to(loss.dtype());
}

void LossScaler::unscale(const std::vector<torch::Tensor>& parameters) const {
  std::vector<torch::Tensor> gradients;
  for (const torch::Tensor& p : parameters)
    if (p.grad().defined()) gradients.push_back(p.grad());
  unscaleGradients(gradients);
}

void LossScaler::unscaleGradients(const std::vector<torch::Tensor>& gradients) const {
  const torch::Tensor inverse = m_scale.reciprocal();
  for (const torch::Tensor& g : gradients) g.mul_(inverse.to(g.dtype()));
}

void LossScaler::update(const torch::Tensor& finite) {
  const torch::Tensor steps = torch::where(finite, m_finiteSteps + 1, torch::zeros_like(m_finiteSteps));
  const torch::Tensor grow = steps >= m_growthInterval;
  m_scale.copy_(torch::where(finite, torch::where(grow, m_scale * 2.0, m_scale), m_scale * 0.5));
  m_finiteSteps.copy_(torch::where(grow, torch::zeros_like(steps), steps));
}

double LossScaler::scale() const {
  return m_scale.item<double>();
}

std::int64_t LossScaler::finiteSteps() const {
  return m_finiteSteps.item<std::int64_t>();
}

std::vector<std::pair<std::string, torch::Tensor>> LossScaler::state() const {
  return {{"loss_scaler/scale", m_scale.cpu().reshape({1})},
          {"loss_scaler/finite_steps", m_finiteSteps.cpu().reshape({1})}};
}

void LossScaler::loadState(const std::map<std::string, torch::Tensor>& tensors) {
  const auto scale = tensors.find("loss_scaler/scale");
  const auto steps = tensors.find("loss_scaler/finite_steps");
  if (scale == tensors.end() || steps == tensors.end()) return;
  m_scale.copy_(scale->second.reshape({}).to(m_scale.dtype()));
  m_finiteSteps.copy_(steps->second.reshape({}).to(m_finiteSteps.dtype()));
}

}  // namespace traindeck
