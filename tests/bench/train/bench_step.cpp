// Where a training step's time goes: forward, backward and optimizer of the benchmark model
// (4 layers x 256 wide, block 256, micro-batch 8, GPT-2 vocabulary) on this machine's CPU.
// Prints milliseconds per phase (median of a few steps); no assertions. Runs on the OpenBLAS
// kernels traindeck-train would choose (trainer/blas_kernels.h).
// Usage: bench_step [STEPS [THREADS]].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "trainer/blas_kernels.h"
#include "trainer/model/gpt2.h"
#include "trainer/optim/adamw.h"

using namespace traindeck;

int main(int argc, char** argv) {
  restartWithFasterBlasKernels(argv);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  const int threads =
      argc > 2 ? std::atoi(argv[2]) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(threads);
  ModelConfig m;
  m.n_layer = 4;
  m.n_head = 4;
  m.n_embd = 256;
  m.n_positions = 256;
  m.block_size = 256;
  torch::manual_seed(0);
  Gpt2 model(m);
  AdamW optimizer(AdamW::withDecayOn2dWeights(model->namedWeights()), {});
  const auto data = torch::randint(50257, {8, 257}, torch::kLong);
  std::vector<double> forward, backward, update;
  using Clock = std::chrono::steady_clock;
  const auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  for (int i = 0; i < steps; ++i) {
    for (auto& p : model->parameters()) p.mutable_grad() = torch::Tensor();
    const auto t0 = Clock::now();
    const auto loss = model->loss(data.narrow(1, 0, 256), data.narrow(1, 1, 256));
    const auto t1 = Clock::now();
    loss.backward();
    const auto t2 = Clock::now();
    optimizer.step(1e-4, torch::ones({}));
    const auto t3 = Clock::now();
    forward.push_back(ms(t0, t1));
    backward.push_back(ms(t1, t2));
    update.push_back(ms(t2, t3));
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("threads %d  BLAS kernels %s  forward %.0f ms  backward %.0f ms  optimizer %.0f ms\n",
              at::get_num_threads(), loadedOpenblasCore().c_str(), median(forward), median(backward), median(update));
}
