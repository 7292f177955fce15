// The GPT-2 module: parameter counts equal to the planner's, Hugging Face names and layouts,
// the fused output loss against the plain one, loss at initialisation, and overfitting (on CUDA
// in bf16 too, where there is a GPU).
#include <gtest/gtest.h>

#include <cmath>

#include "config/model_presets.h"
#include "config/planner.h"
#include "skip_without_cuda.h"
#include "trainer/model/gpt2.h"
#include "trainer/model/lm_head_loss.h"
#include "trainer/torch_compat.h"

namespace traindeck {
namespace {

ModelConfig debugModel(int64_t vocab = 257) {
  ModelConfig m;
  m.n_layer = 2;
  m.n_head = 4;
  m.n_embd = 64;
  m.n_positions = 64;
  m.block_size = 32;
  m.vocab_size = vocab;
  return m;
}

TEST(Gpt2, ParameterCountMatchesThePlannerForEveryPreset) {
  for (const ModelPreset& preset : modelPresets()) {
    ModelConfig m;
    applyModelPreset(preset, m);
    Gpt2 model(m, /*initialise=*/false);  // uninitialised memory is never touched
    EXPECT_EQ(model->parameterCount(), parameterCount(m)) << preset.name;
  }
  EXPECT_EQ(Gpt2(debugModel())->parameterCount(), parameterCount(debugModel()));
}

TEST(Gpt2, UsesHuggingFaceNamesAndConv1DLayout) {
  ModelConfig m = debugModel();
  Gpt2 model(m);
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& [name, p] : model->namedWeights()) shapes[name] = p.sizes().vec();
  EXPECT_EQ(shapes.at("transformer.wte.weight"), (std::vector<int64_t>{257, 64}));
  EXPECT_EQ(shapes.at("transformer.wpe.weight"), (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(shapes.at("transformer.h.0.attn.c_attn.weight"), (std::vector<int64_t>{64, 192}));
  EXPECT_EQ(shapes.at("transformer.h.1.mlp.c_proj.weight"), (std::vector<int64_t>{256, 64}));
  EXPECT_EQ(shapes.at("transformer.ln_f.bias"), (std::vector<int64_t>{64}));
  EXPECT_EQ(shapes.size(), 4u + 2 * 12);
}

TEST(Gpt2, InitialisationFollowsGpt2) {
  torch::manual_seed(0);
  ModelConfig m = debugModel();
  m.n_embd = 256;
  m.n_layer = 8;
  Gpt2 model(m);
  auto weights = model->namedWeights();
  std::map<std::string, torch::Tensor> byName(weights.begin(), weights.end());
  EXPECT_NEAR(byName.at("transformer.h.0.attn.c_attn.weight").std().item<double>(), 0.02, 0.001);
  EXPECT_NEAR(byName.at("transformer.h.0.attn.c_proj.weight").std().item<double>(), 0.02 / std::sqrt(16.0), 0.0005);
  EXPECT_EQ(byName.at("transformer.h.0.ln_1.weight").min().item<float>(), 1.0f);
  EXPECT_EQ(byName.at("transformer.h.0.mlp.c_fc.bias").abs().max().item<float>(), 0.0f);
}

// lmHeadLoss(x, w, targets) and its gradients against plain cross-entropy of x·wᵀ; returns
// the plain loss. x and w require gradients.
double expectLmHeadLossMatchesPlain(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& targets,
                                    double relativeLossTolerance, int64_t chunkRows = 0) {
  const auto fused = lmHeadLoss(x, w, targets, nullptr, chunkRows);
  fused.backward();
  const auto gx = x.grad().clone(), gw = w.grad().clone();
  x.mutable_grad().zero_();
  w.mutable_grad().zero_();
  const auto plain = torch::nn::functional::cross_entropy(torch::matmul(x, w.t()), targets);
  plain.backward();
  EXPECT_NEAR(fused.item<double>(), plain.item<double>(), relativeLossTolerance * plain.item<double>());
  EXPECT_TRUE(torch::allclose(gx, x.grad(), 1e-4, 1e-6)) << "dx, V = " << w.size(0);
  EXPECT_TRUE(torch::allclose(gw, w.grad(), 1e-4, 1e-6)) << "dW, V = " << w.size(0);
  return plain.item<double>();
}

TEST(LmHeadLoss, MatchesPlainCrossEntropyAndItsGradients) {
  torch::manual_seed(1);
  for (const int64_t V : {7, 50257})
    expectLmHeadLossMatchesPlain(torch::randn({300, 16}, torch::requires_grad()),
                                 torch::randn({V, 16}, torch::requires_grad()),
                                 torch::randint(V, {300}, torch::kLong), 1e-4);
}

// Rows in chunks of 64 (the last one short): the gradient of W adds up over the chunks.
TEST(LmHeadLoss, GivesTheSameInChunksOfRows) {
  torch::manual_seed(3);
  expectLmHeadLossMatchesPlain(torch::randn({300, 16}, torch::requires_grad()),
                               torch::randn({1000, 16}, torch::requires_grad()),
                               torch::randint(1000, {300}, torch::kLong), 1e-4, 64);
}

// A row whose target is far less likely than fp32's smallest probability keeps its exact loss
// (hundreds of nats), and its gradient, as plain cross-entropy gives them.
TEST(LmHeadLoss, AnUnderflowingTargetProbabilityKeepsItsExactLoss) {
  torch::manual_seed(2);
  auto xData = torch::randn({6, 4});
  auto wData = torch::randn({50, 4});
  const auto targets = torch::randint(50, {6}, torch::kLong);
  xData[0] = torch::tensor({100.0f, 0.0f, 0.0f, 0.0f});
  wData[targets[0].item<int64_t>()] = torch::tensor({-3.0f, 0.0f, 0.0f, 0.0f});  // ~300 nats below the rest
  const double plain = expectLmHeadLossMatchesPlain(xData.requires_grad_(), wData.requires_grad_(), targets, 1e-5);
  EXPECT_GT(plain, 30.0) << "the first row's ~300 nats, over 6 rows, were not made";
}

// With a scratch block the logits of every call land in the same memory (one block for the
// run instead of a fresh ~400 MB each step), and the loss and gradients are bit for bit those
// of a call without one.
// The scratch block changes where the logits live, not what is computed: the same products
// and passes, so equal within fp32 rounding (BLAS may order a dot product's sums differently
// for another output address: AMD's Zen kernels do). Calls into the same block run the same
// code on the same memory and agree bit for bit.
TEST(LmHeadLoss, ReusesTheCallersScratchBlockAndGivesTheSameResult) {
  torch::manual_seed(4);
  const auto x = torch::randn({64, 16}, torch::requires_grad());
  const auto w = torch::randn({1000, 16}, torch::requires_grad());
  const auto targets = torch::randint(1000, {64}, torch::kLong);
  const auto plain = lmHeadLoss(x, w, targets);
  plain.backward();
  const auto gx = x.grad().clone(), gw = w.grad().clone();
  torch::Tensor scratch, firstLoss, firstGx, firstGw;
  for (int call = 0; call < 2; ++call) {
    x.mutable_grad().zero_();
    w.mutable_grad().zero_();
    const void* before = scratch.defined() ? scratch.data_ptr() : nullptr;
    const auto withScratch = lmHeadLoss(x, w, targets, &scratch);
    withScratch.backward();
    ASSERT_TRUE(scratch.defined());
    EXPECT_GE(scratch.numel(), 64 * 1000);
    EXPECT_TRUE(torch::allclose(withScratch, plain, 1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(x.grad(), gx, 1e-4, 1e-6));
    EXPECT_TRUE(torch::allclose(w.grad(), gw, 1e-4, 1e-6));
    if (!before) {
      firstLoss = withScratch.detach().clone(), firstGx = x.grad().clone(), firstGw = w.grad().clone();
      continue;
    }
    EXPECT_EQ(scratch.data_ptr(), before) << "a second call takes a new block";
    EXPECT_TRUE(torch::equal(withScratch, firstLoss));
    EXPECT_TRUE(torch::equal(x.grad(), firstGx));
    EXPECT_TRUE(torch::equal(w.grad(), firstGw));
  }
}

// The tied lookup gives torch::embedding's rows, and the tied weight the gradient that the
// lookup and the output layer give it apart (repeated tokens included): its rows added into the
// output layer's block, or, with no block left there, a dense gradient of its own. The holder
// is empty afterwards (the weight took the block).
TEST(LmHeadLoss, TheTiedLookupAddsItsRowsIntoTheOutputLayersGradient) {
  torch::manual_seed(6);
  const auto w = torch::randn({40, 8}, torch::requires_grad());
  const auto idx = torch::tensor({3, 7, 3, 0, 39, 3}, torch::kLong).view({2, 3});
  const auto targets = torch::randint(40, {6}, torch::kLong);
  const auto rowWeights = torch::randn({2, 3, 8});
  const auto lossOf = [&](const torch::Tensor& tokens, TiedGradient* tied) {
    const auto x = torch::tanh(tokens * rowWeights).view({6, 8});
    return lmHeadLoss(x, w, targets, nullptr, 0, tied);
  };
  lossOf(torch::embedding(w, idx), nullptr).backward();
  const auto expected = w.grad().clone();
  w.mutable_grad() = torch::Tensor();

  TiedGradient tied;
  const auto tokens = tiedTokenLookup(w, idx, &tied);
  EXPECT_TRUE(torch::equal(tokens, torch::embedding(w, idx)));
  lossOf(tokens, &tied).backward();
  EXPECT_FALSE(tied.dense.defined()) << "the lookup kept the output layer's block";
  EXPECT_TRUE(torch::allclose(w.grad(), expected, 1e-5, 1e-7)) << (w.grad() - expected).abs().max().item<float>();
  w.mutable_grad() = torch::Tensor();

  // The lookup alone: its own dense gradient, each row the sum of its tokens' gradients.
  const auto upstream = torch::randn({2, 3, 8});
  (tiedTokenLookup(w, idx, &tied) * upstream).sum().backward();
  const auto alone = w.grad().clone();
  w.mutable_grad() = torch::Tensor();
  (torch::embedding(w, idx) * upstream).sum().backward();
  EXPECT_TRUE(torch::allclose(alone, w.grad(), 1e-6, 1e-7));
  EXPECT_FALSE(alone.is_sparse());
}

TEST(Gpt2, LossAtInitialisationIsCloseToLnVocab) {
  torch::manual_seed(2);
  ModelConfig m = debugModel(50257);
  Gpt2 model(m);
  const auto idx = torch::randint(50257, {4, 32}, torch::kLong);
  const auto targets = torch::randint(50257, {4, 32}, torch::kLong);
  torch::NoGradGuard noGrad;
  EXPECT_NEAR(model->loss(idx, targets).item<double>(), std::log(50257.0), 0.3);
}

// loss() gives the tied weight the gradient that the stages one by one give it (zero3's path,
// where the lookup's gradient is dense), and wte.grad comes out dense, as the optimizer needs.
TEST(Gpt2, LossGivesTheTiedWeightADenseGradientEqualToTheStagesOne) {
  ModelConfig m;
  m.n_layer = 1, m.n_head = 2, m.n_embd = 16, m.n_positions = 8, m.block_size = 8, m.vocab_size = 97;
  torch::manual_seed(5);
  Gpt2 model(m);
  const auto idx = torch::randint(97, {3, 8}, torch::kLong), targets = torch::randint(97, {3, 8}, torch::kLong);
  const auto wte = model->transformer->wte->weight;
  model->loss(idx, targets).backward();
  ASSERT_TRUE(wte.grad().defined());
  EXPECT_FALSE(wte.grad().is_sparse());
  EXPECT_TRUE(wte.grad().is_contiguous());
  const auto whole = wte.grad().clone();
  wte.mutable_grad() = torch::Tensor();
  auto x = model->embed(idx);
  for (const auto& block : *model->transformer->h) x = block->as<Block>()->forward(x);
  model->headLoss(x, targets).backward();
  EXPECT_TRUE(torch::allclose(whole, wte.grad(), 1e-5, 1e-7)) << (whole - wte.grad()).abs().max().item<float>();
}

TEST(Gpt2, OverfitsOneBatch) {
  torch::manual_seed(3);
  Gpt2 model(debugModel());
  const auto data = torch::randint(257, {4, 33}, torch::kLong);
  const auto idx = data.narrow(1, 0, 32), targets = data.narrow(1, 1, 32);
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(3e-3).weight_decay(0.0));
  double loss = 0;
  for (int step = 0; step < 300 && !(loss > 0 && loss < 0.05); ++step) {
    optimizer.zero_grad();
    const auto l = model->loss(idx, targets);
    l.backward();
    optimizer.step();
    loss = l.item<double>();
  }
  EXPECT_LT(loss, 0.05);
}

TEST(Gpt2, Bf16AutocastOnCudaTracksFp32AndOverfitsOneBatch) {
  TRAINDECK_SKIP_WITHOUT_CUDA();
  const torch::Device cuda(torch::kCUDA, 0);
  if (!compat::cudaDeviceSupportsBf16(0)) GTEST_SKIP() << compat::cudaDeviceName(0) << " has no bf16";
  torch::manual_seed(3);
  Gpt2 model(debugModel());
  model->to(cuda);
  const auto data = torch::randint(257, {4, 33}, torch::TensorOptions().dtype(torch::kLong).device(cuda));
  const auto idx = data.narrow(1, 0, 32), targets = data.narrow(1, 1, 32);
  double fp32 = 0, bf16 = 0;
  {
    torch::NoGradGuard noGrad;
    fp32 = model->loss(idx, targets).item<double>();
    const compat::AutocastGuard autocast(cuda, Precision::Bf16);
    bf16 = model->loss(idx, targets).item<double>();
  }
  EXPECT_NEAR(bf16, fp32, 0.02 * fp32) << "bf16 forward strays from fp32";

  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(3e-3).weight_decay(0.0));
  double loss = 0;
  for (int step = 0; step < 400 && !(loss > 0 && loss < 0.05); ++step) {
    optimizer.zero_grad();
    torch::Tensor l;
    {
      const compat::AutocastGuard autocast(cuda, Precision::Bf16);
      l = model->loss(idx, targets);
    }
    l.backward();
    optimizer.step();
    loss = l.item<double>();
  }
  EXPECT_LT(loss, 0.05);
  for (const auto& p : model->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat) << "master weights stay fp32";
}

}  // namespace
}  // namespace traindeck

namespace traindeck {
namespace {

// Gradients of every parameter after one loss.backward(), by name.
std::map<std::string, torch::Tensor> gradientsOf(Gpt2& model, const torch::Tensor& data) {
  for (auto& p : model->parameters()) p.mutable_grad() = torch::Tensor();
  torch::manual_seed(11);  // the same dropout draws for both models
  model->loss(data.narrow(1, 0, 32), data.narrow(1, 1, 32)).backward();
  std::map<std::string, torch::Tensor> out;
  for (const auto& [name, p] : model->namedWeights()) out[name] = p.grad().clone();
  return out;
}

TEST(ActivationCheckpointing, GivesTheSameGradientsWithAndWithoutDropout) {
  for (const double dropout : {0.0, 0.1}) {
    ModelConfig m = debugModel();
    m.dropout = dropout;
    torch::manual_seed(4);
    Gpt2 plain(m);
    Gpt2 checkpointed(m, /*initialise=*/false);
    {
      torch::NoGradGuard noGrad;
      auto source = plain->namedWeights();
      auto target = checkpointed->namedWeights();
      for (std::size_t i = 0; i < source.size(); ++i) target[i].second.copy_(source[i].second);
    }
    checkpointed->setActivationCheckpointing(true);
    const auto data = torch::randint(257, {4, 33}, torch::kLong);
    const auto expected = gradientsOf(plain, data);
    const auto actual = gradientsOf(checkpointed, data);
    for (const auto& [name, grad] : expected)
      EXPECT_TRUE(torch::allclose(actual.at(name), grad, 1e-5, 1e-7)) << name << " dropout " << dropout;
  }
}

}  // namespace
}  // namespace traindeck
