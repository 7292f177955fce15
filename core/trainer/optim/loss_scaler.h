// Dynamic loss scaling for fp16 training, as PyTorch's GradScaler does it: the loss is
// multiplied by a scale before backward so that small gradients survive fp16's range, and the
// gradients are divided by it before clipping and the optimizer. A step whose gradients are not
// finite is skipped and halves the scale; `growthInterval` finite steps in a row double it.
// The scale and the count stay on the device: no host sync per step.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace traindeck {

class LossScaler {
 public:
  static constexpr double kInitialScale = 65536.0;
  static constexpr std::int64_t kGrowthInterval = 2000;

  explicit LossScaler(const torch::Device& device, double initialScale = kInitialScale,
                      std::int64_t growthInterval = kGrowthInterval);

  torch::Tensor scaled(const torch::Tensor& loss) const;  // loss * scale
  // Divides every defined gradient by the scale (in place).
  void unscale(const std::vector<torch::Tensor>& parameters) const;
  // Divides each of these gradient tensors by the scale (in place): zero2's shard.
  void unscaleGradients(const std::vector<torch::Tensor>& gradients) const;
  // After a step: `finite` (a 0-dim bool tensor on the device) says whether it was applied.
  void update(const torch::Tensor& finite);

  double scale() const;  // reads the device: for logs, tests and checkpoints only
  std::int64_t finiteSteps() const;

  // "loss_scaler/scale" and "loss_scaler/finite_steps", saved with the optimizer's state.
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  // Loads what state() gave; a checkpoint without it (fp32 or bf16 before) keeps the start values.
  void loadState(const std::map<std::string, torch::Tensor>& tensors);
  // The device tensors themselves, for a broadcast from rank 0 in place.
  std::vector<torch::Tensor> liveTensors() const { return {m_scale, m_finiteSteps}; }

 private:
  torch::Tensor m_scale;        // 0-dim float
  torch::Tensor m_finiteSteps;  // 0-dim int64: finite steps since the last change
  std::int64_t m_growthInterval;
};

}  // namespace traindeck
