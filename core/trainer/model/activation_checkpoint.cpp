// A re-entrant autograd function, like torch.utils.checkpoint's original form: backward()
// recomputes the block under grad mode and calls torch::autograd::backward on it, which also
// accumulates the block's parameter gradients.
#include "activation_checkpoint.h"

namespace traindeck {

namespace {

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, int64_t blockAddress) {
    ctx->saved_data["block"] = blockAddress;
    ctx->saved_data["rng"] = at::detail::getDefaultCPUGenerator().get_state();
    ctx->save_for_backward({x});
    torch::NoGradGuard noGrad;
    return reinterpret_cast<BlockImpl*>(blockAddress)->forward(x);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list gradOutputs) {
    auto* block = reinterpret_cast<BlockImpl*>(ctx->saved_data["block"].toInt());
    const auto input = ctx->get_saved_variables()[0].detach().requires_grad_(true);
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    const auto now = generator.get_state();
    generator.set_state(ctx->saved_data["rng"].toTensor());  // the same dropout masks as before
    torch::Tensor output;
    {
      torch::AutoGradMode enable(true);
      output = block->forward(input);
    }
    generator.set_state(now);
    torch::autograd::backward({output}, {gradOutputs[0]});
    return {input.grad(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor checkpointedForward(BlockImpl& block, const torch::Tensor& x) {
  return CheckpointFunction::apply(x, reinterpret_cast<int64_t>(&block));
}

}  // namespace traindeck
