// Stage s uses unit s, except the last (the head), which uses unit 0 again. Every rank runs the
// same stages in the same order, so gathers, prefetches and reduce-scatters match across ranks.
// Dropout draws the same masks in a stage's recompute as in its forward (the CPU generator's
// state is replayed, as activation_checkpoint.cpp does); on CUDA the trainer refuses dropout.
#include "sharded_gpt2.h"

#include <ATen/autocast_mode.h>

#include <cstdlib>
#include <string>

#include "trainer/torch_compat.h"

namespace traindeck {

namespace {

class UnitStageFunction : public torch::autograd::Function<UnitStageFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& targets, const torch::Tensor& /*anchor*/, int64_t ownerAddress,
                               int64_t stage) {
    ctx->saved_data["owner"] = ownerAddress;
    ctx->saved_data["stage"] = stage;
    ctx->saved_data["rng"] = at::detail::getDefaultCPUGenerator().get_state();
    ctx->save_for_backward({x, targets});
    torch::NoGradGuard noGrad;
    return reinterpret_cast<ShardedGpt2*>(ownerAddress)->forwardStage(static_cast<int>(stage), x, targets);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list gradOutputs) {
    auto* owner = reinterpret_cast<ShardedGpt2*>(ctx->saved_data["owner"].toInt());
    const auto saved = ctx->get_saved_variables();
    const auto inputGrad = owner->backwardStage(static_cast<int>(ctx->saved_data["stage"].toInt()), saved[0], saved[1],
                                                ctx->saved_data["rng"].toTensor(), gradOutputs[0]);
    return {inputGrad, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

// Read once, when the model is built: the switch holds for the whole run.
bool prefetchWanted() {
  const char* value = std::getenv("TRAINDECK_ZERO3_PREFETCH");
  return !(value && std::string(value) == "0");
}

}  // namespace

std::vector<NamedParameters> ShardedGpt2::units(Gpt2& model) {
  std::vector<NamedParameters> units(static_cast<std::size_t>(model->config().n_layer) + 1);
  const std::string blocks = "transformer.h.";
  for (auto& [name, parameter] : model->namedWeights()) {
    const std::size_t unit = name.rfind(blocks, 0) == 0 ? 1 + std::stoul(name.substr(blocks.size())) : 0;
    units.at(unit).emplace_back(name, parameter);
  }
  return units;
}

ShardedGpt2::ShardedGpt2(Gpt2& model, ShardedUnits& units, const torch::Device& device, Precision precision)
    : m_model(model),
      m_units(units),
      m_device(device),
      m_precision(precision),
      m_prefetch(prefetchWanted()),
      m_anchor(torch::zeros({}).requires_grad_(true)) {}

torch::Tensor ShardedGpt2::loss(const torch::Tensor& idx, const torch::Tensor& targets) {
  const auto self = reinterpret_cast<int64_t>(this);
  torch::Tensor x = idx;  // (B, T), then (B, T, C) after the embeddings
  for (int stage = 0; stage < stageCount(); ++stage) x = UnitStageFunction::apply(x, targets, m_anchor, self, stage);
  return x;
}

torch::Tensor ShardedGpt2::compute(int stage, const torch::Tensor& x, const torch::Tensor& targets) {
  if (stage == 0) return m_model->embed(x);
  if (stage == stageCount() - 1) return m_model->headLoss(x, targets);
  return (*m_model->transformer->h)[static_cast<std::size_t>(stage - 1)]->as<BlockImpl>()->forward(x);
}

torch::Tensor ShardedGpt2::forwardStage(int stage, const torch::Tensor& x, const torch::Tensor& targets) {
  const int unit = unitOf(stage);
  m_units.gather(unit);
  if (m_prefetch && stage + 1 < stageCount()) m_units.prefetch(unitOf(stage + 1));
  auto output = compute(stage, x, targets);
  m_units.release(unit);
  at::autocast::clear_cache();  // autocast's copies of the unit's weights go with it
  return output;
}

torch::Tensor ShardedGpt2::backwardStage(int stage, const torch::Tensor& x, const torch::Tensor& targets,
                                         const torch::Tensor& rngState, const torch::Tensor& gradOutput) {
  const int unit = unitOf(stage);
  m_units.gather(unit);
  if (m_prefetch && stage > 0) m_units.prefetch(unitOf(stage - 1));
  const bool differentiable = x.is_floating_point();
  const auto input = differentiable ? x.detach().requires_grad_(true) : x;
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  const auto now = generator.get_state();
  generator.set_state(rngState);  // the same dropout masks as in the forward
  torch::Tensor output;
  {
    torch::AutoGradMode enable(true);
    const compat::AutocastGuard autocast(m_device, m_precision);  // on CUDA, autograd's thread is not the caller's
    output = compute(stage, input, targets);
  }
  generator.set_state(now);
  std::vector<torch::Tensor> inputs = m_units.parameters(unit);
  const std::size_t parameterCount = inputs.size();
  if (differentiable) inputs.push_back(input);
  auto grads = torch::autograd::grad({output}, inputs, {gradOutput}, /*retain_graph=*/false, /*create_graph=*/false,
                                     /*allow_unused=*/true);
  m_units.release(unit);
  at::autocast::clear_cache();
  const torch::Tensor inputGrad = differentiable ? grads.back() : torch::Tensor();
  grads.resize(parameterCount);
  m_units.reduceGradients(unit, grads);
  return inputGrad;
}

}  // namespace traindeck
