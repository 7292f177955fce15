// Fused output layer and loss. Forward, per chunk of rows: logits = x·Wᵀ (n, V) in fp32, turned
// into softmax in place (ATen's row kernel: each row's max, exp-sum and scaling passes run in
// the core's cache, so the (n, V) block crosses memory once instead of five times), loss +=
// −log softmax[target]; when a gradient is wanted, p = softmax − onehot(target), dx = p·W / N
// and dW += pᵀ·x / N, the 1/N applied to the products' outputs rather than to p. Backward only
// scales the stored dx, dWᵀ by the incoming gradient. Same matrix products as the unfused layer;
// peak memory one chunk of logits.
#include "lm_head_loss.h"

#include <algorithm>
#include <utility>

namespace traindeck {

namespace {

// One chunk's fp32 logits. Large enough that the products run at full speed (measured here:
// 2048-row chunks take 25% less time than 512-row ones), small against the whole (N, V) for
// long batches: 1.6 GB for B = 8, T = 1024 at GPT-2's vocabulary.
constexpr int64_t kChunkLogitBytes = 512ll << 20;

// x·Wᵀ in fp32: into the caller's scratch block on the CPU in fp32 (grown to `rows` rows when
// smaller), else a new tensor (on CUDA the product follows autocast's dtype, then fp32).
torch::Tensor logitsFor(const torch::Tensor& xc, const torch::Tensor& weight, torch::Tensor* scratch, int64_t rows) {
  const int64_t n = xc.size(0), V = weight.size(0);
  if (!scratch || !xc.is_cpu() || xc.scalar_type() != torch::kFloat || weight.scalar_type() != torch::kFloat)
    return torch::matmul(xc, weight.t()).to(torch::kFloat);
  if (!scratch->defined() || scratch->numel() < n * V)
    *scratch = torch::empty({rows * V}, torch::TensorOptions().dtype(torch::kFloat));
  auto logits = scratch->narrow(0, 0, n * V).view({n, V});
  return at::mm_out(logits, xc, weight.t());
}

// A target probability below this has lost digits to fp32 (exp underflows towards the
// subnormals near 1e-38); such rows' loss is worked out again from their logits.
constexpr float kSmallestExactProbability = 1e-30f;

// Each row's −log softmax[target], (n, 1), from the probabilities. Rows whose target
// probability underflowed (a prediction wrong by more than ~69 nats) get log Σ exp −
// logit[target] from their logits, computed again for those rows alone. CPU only: finding those
// rows reads the data on the host.
torch::Tensor rowLosses(const torch::Tensor& targetProbs, const torch::Tensor& targetLogits, const torch::Tensor& xc,
                        const torch::Tensor& weight) {
  auto losses = -targetProbs.log();
  const auto tiny = targetProbs.lt(kSmallestExactProbability).squeeze(1).nonzero().squeeze(1);
  if (tiny.numel() == 0) return losses;
  const auto logits = torch::matmul(xc.index_select(0, tiny), weight.t()).to(torch::kFloat);  // (k, V)
  const auto exact = torch::logsumexp(logits, 1, /*keepdim=*/true) - targetLogits.index_select(0, tiny);
  return losses.index_copy_(0, tiny, exact);
}

struct SoftmaxAndLosses {
  torch::Tensor probs;   // (n, V) softmax of the logits
  torch::Tensor losses;  // (n, 1) each row's −log softmax[target]
};

// The softmax in the logits' own memory. On the CPU by ATen's row kernel; elsewhere by tensor
// passes (shift by the row maximum, exponentiate, normalise), with loss = log Σ exp − shifted
// logit[target], so that a step never waits for the device (rowLosses would: the sync check of
// train_job.h).
SoftmaxAndLosses softmaxAndLosses(torch::Tensor& logits, const torch::Tensor& tc, const torch::Tensor& xc,
                                  const torch::Tensor& weight) {
  if (!logits.is_cpu()) {
    logits.sub_(std::get<0>(logits.max(1, /*keepdim=*/true)));
    const auto shiftedTarget = logits.gather(1, tc);  // (n, 1)
    const auto sumExp = logits.exp_().sum(1, /*keepdim=*/true);
    return {logits.div_(sumExp), sumExp.log() - shiftedTarget};
  }
  const auto targetLogits = logits.gather(1, tc);  // (n, 1)
  auto probs = at::_softmax_out(logits, logits, 1, /*half_to_float=*/false);
  auto losses = rowLosses(probs.gather(1, tc), targetLogits, xc, weight);
  return {probs, losses};
}

class LmHeadLossFunction : public torch::autograd::Function<LmHeadLossFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& weight, const torch::Tensor& targets, bool wantGrad,
                               torch::Tensor* scratch, int64_t chunkRows, TiedGradient* tied) {
    ctx->saved_data["tied"] = reinterpret_cast<int64_t>(tied);
    const int64_t N = x.size(0), V = weight.size(0);
    const int64_t chunk = chunkRows > 0 ? chunkRows : std::max<int64_t>(1, kChunkLogitBytes / (4 * V));
    const double scale = 1.0 / static_cast<double>(N);
    auto lossSum = torch::zeros({}, x.options().dtype(torch::kFloat));
    torch::Tensor gradX, gradWt;  // gradWt: (C, V), the transpose, which accumulates faster
    if (wantGrad) {
      gradX = torch::empty_like(x);
      gradWt = torch::empty({weight.size(1), V}, weight.options());  // the first chunk's product sets it
    }
    for (int64_t start = 0; start < N; start += chunk) {
      const int64_t n = std::min(chunk, N - start);
      const auto xc = x.narrow(0, start, n);                             // (n, C)
      const auto tc = targets.narrow(0, start, n).unsqueeze(1);          // (n, 1)
      auto logits = logitsFor(xc, weight, scratch, std::min(chunk, N));  // (n, V) fp32
      const auto [probs, losses] = softmaxAndLosses(logits, tc, xc, weight);
      lossSum += losses.sum();
      if (!wantGrad) continue;
      probs.scatter_add_(1, tc, torch::full_like(tc, -1.0, probs.options()));  // softmax − onehot
      const auto p = probs.to(x.scalar_type());
      gradX.narrow(0, start, n).copy_(torch::matmul(p, weight)).mul_(scale);  // (n, C)
      gradWt.addmm_(xc.t(), p, /*beta=*/start == 0 ? 0.0 : 1.0, /*alpha=*/scale);  // (C, V)
    }
    if (wantGrad) ctx->save_for_backward({gradX, gradWt});
    return lossSum * scale;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list gradOutputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& g = gradOutputs[0];  // 0-dim
    const auto& gradWt = saved[1];   // (C, V)
    // dW = (dWᵀ)ᵀ·g laid out as (V, C) in the one pass that scales it (a transposing copy and
    // then a product would cross the (V, C) block twice).
    auto gradW = torch::empty({gradWt.size(1), gradWt.size(0)}, gradWt.options());
    at::mul_out(gradW, gradWt.t(), g.to(gradWt.scalar_type()));
    if (auto* tied = reinterpret_cast<TiedGradient*>(ctx->saved_data["tied"].toInt())) tied->dense = gradW;
    return {saved[0] * g.to(saved[0].scalar_type()), gradW, torch::Tensor(), torch::Tensor(), torch::Tensor(),
            torch::Tensor(), torch::Tensor()};
  }
};

class TiedTokenLookupFunction : public torch::autograd::Function<TiedTokenLookupFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& weight,
                               const torch::Tensor& idx, TiedGradient* tied) {
    const auto flat = idx.reshape({-1});
    ctx->save_for_backward({flat});
    ctx->saved_data["tied"] = reinterpret_cast<int64_t>(tied);
    ctx->saved_data["rows"] = weight.size(0);
    auto sizes = idx.sizes().vec();
    sizes.push_back(weight.size(1));
    return weight.index_select(0, flat).view(sizes);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list gradOutputs) {
    const auto flat = ctx->get_saved_variables()[0];
    const auto& g = gradOutputs[0];
    const auto rows = g.reshape({flat.size(0), g.size(-1)});
    auto* tied = reinterpret_cast<TiedGradient*>(ctx->saved_data["tied"].toInt());
    if (tied != nullptr && tied->dense.defined() && tied->dense.scalar_type() == rows.scalar_type()) {
      // Autograd holds the same block for the weight until this node is done: no gradient of our
      // own, the rows added into it, and the hold let go so that the weight takes it as it is.
      std::exchange(tied->dense, torch::Tensor()).index_add_(0, flat, rows);
      return {torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
    const int64_t V = ctx->saved_data["rows"].toInt();
    return {torch::zeros({V, rows.size(1)}, rows.options()).index_add_(0, flat, rows), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

torch::Tensor lmHeadLoss(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& targets,
                         torch::Tensor* scratch, int64_t chunkRows, TiedGradient* tied) {
  const bool wantGrad = torch::GradMode::is_enabled() && (x.requires_grad() || weight.requires_grad());
  return LmHeadLossFunction::apply(x, weight, targets, wantGrad, scratch, chunkRows, tied);
}

torch::Tensor tiedTokenLookup(const torch::Tensor& weight, const torch::Tensor& idx, TiedGradient* tied) {
  return TiedTokenLookupFunction::apply(weight, idx, tied);
}

}  // namespace traindeck
