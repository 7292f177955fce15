// AdamW with decoupled weight decay on the parameters marked for it. Its own rather than
// torch::optim's: the state is plain named tensors (exact resume, safetensors checkpoints,
// sharding under zero1), and a step can be cancelled on the device without a host sync.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "optimizer.h"

namespace traindeck {

struct OptimizedParameter {
  std::string name;
  torch::Tensor tensor;
  bool decay = true;
  torch::Tensor grad;  // when defined, the gradient to use instead of tensor.grad() (zero1's shard views)
};

struct AdamWSettings {
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8, weightDecay = 0.1;
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizedParameter> parameters, AdamWSettings settings);

  // One update at learning rate `lr` from the parameters' gradients. `apply` is a 0-dim float
  // tensor on the parameters' device, 1 to update and 0 to leave parameters and state exactly
  // as they were (a skipped step); non-finite gradient entries are zeroed first.
  void step(double lr, const torch::Tensor& apply) override;

  // "exp_avg/<name>", "exp_avg_sq/<name>" and "step": everything needed to resume exactly.
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  // Loads what state() gave; throws std::runtime_error naming a missing or misshapen tensor.
  void loadState(const std::map<std::string, torch::Tensor>& tensors);
  std::int64_t stateBytes() const override;

  StreamedTensors wholeStateTensors() override { return streamedAtHand(state()); }
  void loadWholeState(const std::map<std::string, torch::Tensor>& tensors) override { loadState(tensors); }
  void loadWholeStateTensor(const std::string& name, const torch::Tensor& whole) override;

  // Parameters with decay=true: tensors of two or more dimensions (weights and embeddings),
  // not biases or LayerNorm gains.
  static std::vector<OptimizedParameter> withDecayOn2dWeights(
      const std::vector<std::pair<std::string, torch::Tensor>>& named);

 private:
  std::vector<OptimizedParameter> m_params;
  std::vector<torch::Tensor> m_expAvg, m_expAvgSq;
  torch::Tensor m_step;  // 0-dim float: steps applied so far
  AdamWSettings m_settings;
};

}  // namespace traindeck
