// AdamW against torch::optim::AdamW, a cancelled step that changes nothing, weight decay on
// 2-D weights only, the learning-rate schedule's shape, and fp16's dynamic loss scaling.
#include <gtest/gtest.h>

#include <cmath>

#include "trainer/optim/adamw.h"
#include "trainer/optim/loss_scaler.h"
#include "trainer/optim/lr_schedule.h"
#include "trainer/train/train_job.h"

namespace traindeck {
namespace {

TEST(AdamW, MatchesTorchAdamW) {
  torch::manual_seed(0);
  const auto start = torch::randn({5, 3});
  auto ours = start.clone().requires_grad_(true);
  auto theirs = start.clone().requires_grad_(true);
  AdamW optimizer({{.name = "w", .tensor = ours, .decay = true, .grad = {}}},
                  {.beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .weightDecay = 0.1});
  torch::optim::AdamW reference({theirs},
                                torch::optim::AdamWOptions(1e-2).betas({0.9, 0.95}).eps(1e-8).weight_decay(0.1));
  for (int step = 0; step < 10; ++step) {
    const auto target = torch::randn({5, 3});
    for (auto* p : {&ours, &theirs}) {
      p->mutable_grad() = torch::Tensor();
      ((*p - target).pow(2).sum()).backward();
    }
    optimizer.step(1e-2, torch::ones({}));
    reference.step();
  }
  EXPECT_TRUE(torch::allclose(ours, theirs, 1e-6, 1e-7)) << (ours - theirs).abs().max().item<float>();
}

TEST(AdamW, TheFusedCpuUpdateMatchesTheTensorOps) {
  // A transposed (non-contiguous) parameter takes the tensor-op path; its contiguous twin the
  // fused one (vector instructions on 32 of its 35 elements, scalar on the rest). Same values,
  // same gradients, a NaN and infinities among them: the same result.
  torch::manual_seed(4);
  const auto start = torch::randn({7, 5});
  auto fused = start.clone().requires_grad_(true);
  auto storage = start.t().contiguous().requires_grad_(true);  // (5, 7)
  auto strided = storage.t();                                  // (7, 5) view, not contiguous
  ASSERT_FALSE(strided.is_contiguous());
  AdamW a({{.name = "w", .tensor = fused, .decay = true, .grad = {}}},
          {.beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .weightDecay = 0.1});
  AdamW b({{.name = "w", .tensor = strided, .decay = true, .grad = {}}},
          {.beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .weightDecay = 0.1});
  for (int step = 0; step < 5; ++step) {
    auto grad = torch::randn({7, 5});
    if (step == 2) grad[3][1] = NAN;
    if (step == 3) grad[0][2] = INFINITY, grad[6][4] = -INFINITY;  // one in the vector part, one after it
    fused.mutable_grad() = grad.clone();
    strided.mutable_grad() = grad.clone().t().contiguous().t();  // same values, strided too
    a.step(1e-2, torch::ones({}));
    b.step(1e-2, torch::ones({}));
  }
  EXPECT_TRUE(torch::isfinite(fused).all().item<bool>());
  EXPECT_TRUE(torch::allclose(fused, strided, 1e-6, 1e-7)) << (fused - strided).abs().max().item<float>();
}

TEST(AdamW, ACancelledStepChangesNothing) {
  torch::manual_seed(1);
  auto w = torch::randn({4, 4}).requires_grad_(true);
  AdamW optimizer({{.name = "w", .tensor = w, .decay = true, .grad = {}}}, {});
  w.mutable_grad() = torch::randn({4, 4});
  optimizer.step(1e-3, torch::ones({}));
  const auto before = w.detach().clone();
  const auto stateBefore = optimizer.state();
  std::vector<torch::Tensor> saved;
  for (const auto& [name, t] : stateBefore) saved.push_back(t.clone());
  w.mutable_grad() = torch::full({4, 4}, std::numeric_limits<float>::quiet_NaN());
  optimizer.step(1e-3, torch::zeros({}));
  EXPECT_TRUE(torch::equal(w.detach(), before));
  const auto stateAfter = optimizer.state();
  for (std::size_t i = 0; i < saved.size(); ++i) EXPECT_TRUE(torch::equal(stateAfter[i].second, saved[i])) << i;
}

TEST(AdamW, DecaysOnlyTwoDimensionalWeights) {
  const auto named =
      std::vector<std::pair<std::string, torch::Tensor>>{{"transformer.wte.weight", torch::zeros({3, 2})},
                                                         {"transformer.h.0.attn.c_attn.bias", torch::zeros({6})},
                                                         {"transformer.ln_f.weight", torch::zeros({2})}};
  const auto params = AdamW::withDecayOn2dWeights(named);
  EXPECT_TRUE(params[0].decay);
  EXPECT_FALSE(params[1].decay);
  EXPECT_FALSE(params[2].decay);
}

TEST(AdamW, StateRoundTripsByName) {
  auto w = torch::randn({2, 2}).requires_grad_(true);
  AdamW a({{.name = "w", .tensor = w, .decay = true, .grad = {}}}, {});
  w.mutable_grad() = torch::ones({2, 2});
  a.step(0.1, torch::ones({}));
  std::map<std::string, torch::Tensor> saved;
  for (const auto& [name, t] : a.state()) saved[name] = t.clone();
  AdamW b({{.name = "w", .tensor = w, .decay = true, .grad = {}}}, {});
  b.loadState(saved);
  for (const auto& [name, t] : b.state()) EXPECT_TRUE(torch::equal(t, saved.at(name))) << name;
  saved.erase("exp_avg/w");
  EXPECT_THROW(b.loadState(saved), std::runtime_error);
}

TEST(AdamW, StateStreamsTensorByTensor) {
  auto w = torch::randn({2, 3}).requires_grad_(true);
  AdamW a({{.name = "w", .tensor = w, .decay = true, .grad = {}}}, {});
  w.mutable_grad() = torch::ones({2, 3});
  a.step(0.1, torch::ones({}));
  AdamW b({{.name = "w", .tensor = w, .decay = true, .grad = {}}}, {});
  for (const StreamedTensor& t : a.wholeStateTensors()) {
    const torch::Tensor produced = t.produce();
    EXPECT_EQ(produced.sizes().vec(), t.shape) << t.name;
    b.loadWholeStateTensor(t.name, produced.clone());
  }
  const auto expected = a.state();
  const auto loaded = b.state();
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(torch::equal(loaded[i].second, expected[i].second)) << expected[i].first;
  EXPECT_THROW(b.loadWholeStateTensor("exp_avg/v", torch::zeros({2, 3})), std::runtime_error);
  EXPECT_THROW(b.loadWholeStateTensor("exp_avg/w", torch::zeros({3, 2})), std::runtime_error);
}

TEST(LrSchedule, WarmupThenCosineToMinimum) {
  OptimizerConfig optimizer;
  optimizer.lr = 1.0;
  ScheduleConfig schedule;
  schedule.warmup_steps = 10;
  schedule.min_lr = 0.1;
  const LrSchedule lr(optimizer, schedule, 110);
  EXPECT_DOUBLE_EQ(lr.at(0), 0.1);
  EXPECT_DOUBLE_EQ(lr.at(9), 1.0);
  EXPECT_DOUBLE_EQ(lr.at(10), 1.0);
  EXPECT_NEAR(lr.at(59), 0.1 + 0.5 * (1 + std::cos(M_PI * 49.0 / 99.0)) * 0.9, 1e-12);
  EXPECT_DOUBLE_EQ(lr.at(109), 0.1);
  schedule.decay = Decay::Linear;
  EXPECT_NEAR(LrSchedule(optimizer, schedule, 110).at(59), 1.0 - 0.9 * 49.0 / 99.0, 1e-12);
  schedule.decay = Decay::Constant;
  EXPECT_DOUBLE_EQ(LrSchedule(optimizer, schedule, 110).at(100), 1.0);
}

}  // namespace
}  // namespace traindeck

namespace traindeck {
namespace {

TEST(TotalSteps, TheFirstLimitReachedEndsTheRun) {
  RunConfig c;
  c.model.block_size = 100;
  c.strategy.micro_batch = 2;
  c.strategy.grad_accum = 5;  // 1,000 tokens per step
  c.schedule.max_steps = 50;
  c.schedule.max_tokens = 0;
  EXPECT_EQ(totalSteps(c), 50);
  c.schedule.max_tokens = 20'500;  // 20.5 steps of tokens: the 21st step reaches it
  EXPECT_EQ(totalSteps(c), 21);
  c.schedule.max_steps = 0;
  EXPECT_EQ(totalSteps(c), 21);
  c.schedule.max_steps = 10;
  EXPECT_EQ(totalSteps(c), 10);
}

}  // namespace
}  // namespace traindeck

namespace traindeck {
namespace {

// Ten AdamW steps on a small least-squares problem, with or without a loss scaler.
torch::Tensor trainWith(LossScaler* scaler) {
  torch::manual_seed(3);
  auto w = torch::randn({6, 4}).requires_grad_(true);
  AdamW optimizer({{.name = "w", .tensor = w, .decay = true, .grad = {}}}, {});
  for (int step = 0; step < 10; ++step) {
    const auto x = torch::randn({8, 6}), y = torch::randn({8, 4});
    w.mutable_grad() = torch::Tensor();
    const auto loss = (torch::matmul(x, w) - y).pow(2).mean();
    (scaler ? scaler->scaled(loss) : loss).backward();
    if (scaler) scaler->unscale({w});
    const auto finite = torch::isfinite(w.grad()).all();
    optimizer.step(1e-2, finite);
    if (scaler) scaler->update(finite);
  }
  return w.detach();
}

TEST(LossScaler, ScalingByAPowerOfTwoChangesNoBit) {
  LossScaler scaler(torch::kCPU, 1024.0);
  EXPECT_TRUE(torch::equal(trainWith(&scaler), trainWith(nullptr)));
  EXPECT_EQ(scaler.finiteSteps(), 10);
  EXPECT_EQ(scaler.scale(), 1024.0);
}

TEST(LossScaler, KeepsSmallGradientsThatFp16WouldLose) {
  // 1e-8 is below fp16's smallest subnormal (6e-8): it flushes to zero unless scaled first.
  const auto gradient = torch::full({}, 1e-8);
  EXPECT_EQ(gradient.to(torch::kHalf).item<float>(), 0.0f);
  const float kept = (gradient * LossScaler::kInitialScale).to(torch::kHalf).to(torch::kFloat).item<float>() /
                     static_cast<float>(LossScaler::kInitialScale);
  EXPECT_NEAR(kept, 1e-8, 1e-11);
}

TEST(LossScaler, AnOverflowHalvesTheScaleAndFiniteStepsDoubleIt) {
  LossScaler scaler(torch::kCPU, 65536.0, /*growthInterval=*/3);
  scaler.update(torch::full({}, false));
  EXPECT_EQ(scaler.scale(), 32768.0);
  EXPECT_EQ(scaler.finiteSteps(), 0);
  scaler.update(torch::full({}, true));
  scaler.update(torch::full({}, true));
  EXPECT_EQ(scaler.scale(), 32768.0);
  EXPECT_EQ(scaler.finiteSteps(), 2);
  scaler.update(torch::full({}, true));  // the third finite step in a row
  EXPECT_EQ(scaler.scale(), 65536.0);
  EXPECT_EQ(scaler.finiteSteps(), 0);
  scaler.update(torch::full({}, true));
  scaler.update(torch::full({}, false));  // an overflow resets the count
  EXPECT_EQ(scaler.scale(), 32768.0);
  EXPECT_EQ(scaler.finiteSteps(), 0);

  // An overflowing gradient: unscaled it is still not finite, so the step is skipped.
  auto w = torch::ones({2}).requires_grad_(true);
  w.mutable_grad() = torch::tensor({1.0f, INFINITY});
  scaler.unscale({w});
  EXPECT_FALSE(torch::isfinite(w.grad()).all().item<bool>());
  EXPECT_EQ(w.grad()[0].item<float>(), 1.0f / 32768.0f);
}

TEST(LossScaler, ItsStateResumes) {
  LossScaler before(torch::kCPU, 65536.0, 5);
  before.update(torch::full({}, false));
  before.update(torch::full({}, true));
  std::map<std::string, torch::Tensor> saved;
  for (const auto& [name, tensor] : before.state()) saved[name] = tensor.clone();
  LossScaler after(torch::kCPU);
  after.loadState(saved);
  EXPECT_EQ(after.scale(), 32768.0);
  EXPECT_EQ(after.finiteSteps(), 1);
  LossScaler untouched(torch::kCPU);
  untouched.loadState({});  // a checkpoint from an fp32 run
  EXPECT_EQ(untouched.scale(), LossScaler::kInitialScale);
}

}  // namespace
}  // namespace traindeck
