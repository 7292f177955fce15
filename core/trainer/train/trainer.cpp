// The loop (STYLE.md: a short, readable train()): resume; while steps remain: step, maybe
// evaluate (every N, at the end, at --stop-at), maybe checkpoint (every N, at the end, when stopped).
// Per-step results stay on the device and are read back about once a second (the reporter's
// flush), so the loop never waits for the device just to log.
#include "trainer.h"

#include <filesystem>

#include "config/config_io.h"
#include "config/devices.h"
#include "config/planner.h"
#include "device_choice.h"
#include "progress_line.h"
#include "runlog/run_directory.h"
#include "runlog/run_exit.h"
#include "trainer/runtime_info.h"
#include "trainer/torch_compat.h"

namespace traindeck {

Trainer::Trainer(const RunConfig& config, const TrainOptions& options)
    : m_config(config),
      m_options(options),
      m_device(chooseTrainingDevice(config.strategy, options.dist.localRank)),
      m_log(options.paths.rankLog(options.dist.rank), options.echoLog),
      m_reporter(m_options, m_device, m_log),
      m_schedule(config.optimizer, config.schedule, totalSteps(config)),
      m_totalSteps(totalSteps(config)),
      m_tokensPerStep(tokensPerStep(config)) {}

TrainResult Trainer::run() {
  TrainResult result;
  try {
    start();
    bool stopped = false;
    while (m_step < m_totalSteps) {
      trainStep();
      const bool last = m_step == m_totalSteps;
      stopped = shouldStop(last);
      // A --stop-at step is measured too: a sweep compares trials there (docs/sweeps.md).
      const bool atStopStep = m_options.stopAtStep > 0 && m_step == m_options.stopAtStep;
      const bool evalNow =
          m_data.val && m_config.eval.every > 0 && (m_step % m_config.eval.every == 0 || last || atStopStep);
      const bool saveNow =
          last || stopped || (m_config.checkpoint.every > 0 && m_step % m_config.checkpoint.every == 0);
      if (m_reporter.flushDue() || evalNow || saveNow) flush();
      if (evalNow) evaluate();
      if (saveNow) saveCheckpoint();
      m_reporter.writeSystem(false);
      if (stopped) break;
    }
    if (m_step >= m_totalSteps && m_lastCheckpointStep != m_step) saveCheckpoint();  // resumed at the end
    flush();
    m_reporter.writeLastSystem();
    m_log.endProgress();
    result.status = stopped ? RunStatus::Stopped : RunStatus::Finished;
    result.reason = stopped ? "stopped at step " + std::to_string(m_step) + " " + stopWords() + "; --resume continues"
                            : "finished " + std::to_string(m_step) + " steps";
  } catch (const std::exception& e) {
    m_log.endProgress();
    result.status = RunStatus::Failed;
    result.reason = std::string(e.what()) + (m_step > 0 ? " (at step " + std::to_string(m_step) + ")" : "");
    m_log.error(result.reason);
    try {
      m_reporter.event("error", result.reason, m_step);
    } catch (const std::exception&) {
    }
  }
  result.steps = m_step;
  result.lastLoss = m_reporter.lastLoss();
  setStatus(result.status, result.reason);
  if (result.status != RunStatus::Failed) m_log.info(result.reason);  // a failure was logged as an error
  return result;
}

void Trainer::start() {
  if (isRank0())
    if (const std::string why = saveConfigFile(m_config, m_options.paths.config()); !why.empty())
      throw std::runtime_error(why);
  m_reporter.openMetrics();
  for (const std::string& note : m_options.processNotes) m_log.info(note);
  const RuntimeInfo runtime = probeRuntime();
  m_log.info("runtime: " + describeRuntime(runtime));
  if (const std::string warning = blasWarning(runtime); !warning.empty()) {
    m_log.warn(warning);
    m_reporter.event("warn", warning, std::nullopt);
  }
  if (m_config.strategy.activation_checkpointing && m_device.is_cuda() && m_config.model.dropout > 0)
    throw std::runtime_error(
        "activation checkpointing with dropout on CUDA is not implemented yet: its recomputed "
        "dropout masks would differ; set model.dropout: 0 or activation_checkpointing: false");
  if (m_config.strategy.kind == StrategyKind::Zero3 && m_device.is_cuda() && m_config.model.dropout > 0)
    throw std::runtime_error(
        "zero3 with dropout on CUDA is not implemented yet: zero3 recomputes every block in backward and "
        "the recomputed dropout masks would differ; set model.dropout: 0 or use zero2");
  if (m_options.dist.worldSize > 1) setUpDistributed();
  setUpModelAndOptimizer();
  m_data = openBatchSources(m_config, m_options.dist.rank, m_options.dist.worldSize);
  m_checkpoints = std::make_unique<TrainingCheckpoints>(
      Checkpointer(m_options.paths.checkpoints(), static_cast<int>(m_config.checkpoint.keep)), m_comm.get(),
      m_options.dist.rank, m_options.dist.worldSize, m_log, m_reporter);
  if (m_options.resume || m_config.checkpoint.resume)
    if (const auto resumed = m_checkpoints->resume(parts(), m_device, resumeCause())) {
      m_step = m_lastCheckpointStep = resumed->step;
      m_tokens = resumed->tokens;
    }
  m_reporter.setThroughputBasis({m_tokensPerStep, makePlan(m_config, thisMachineCpu()).flopsPerToken, jobPeakFlops()});
  m_reporter.begin(m_model->parameterCount(), m_step, m_totalSteps);
  m_log.info("training " + formatThousands(m_model->parameterCount()) + " parameters on " + m_device.str() + " for " +
             std::to_string(m_totalSteps) + " steps of " + formatThousands(m_tokensPerStep) + " tokens");
  setStatus(RunStatus::Running, "");
}

// A fresh host block per batch: on CUDA a pinned one, copied without waiting (LibTorch's pinned
// allocator reuses it only once the copy is done), so the step never syncs to upload data.
torch::Tensor Trainer::batchTensor(BatchSource& source) {
  const auto B = m_config.strategy.micro_batch, T = m_config.model.block_size;
  auto host = torch::empty({B, T + 1}, torch::TensorOptions().dtype(torch::kLong).pinned_memory(m_device.is_cuda()));
  source.next({host.data_ptr<std::int64_t>(), static_cast<std::size_t>(host.numel())});
  return m_device.is_cpu() ? host : host.to(m_device, /*non_blocking=*/true);
}

torch::Tensor Trainer::batchLoss(const torch::Tensor& batch) {
  const auto T = m_config.model.block_size;
  const auto idx = batch.narrow(1, 0, T), targets = batch.narrow(1, 1, T);  // (B, T) each
  return m_shardedModel ? m_shardedModel->loss(idx, targets) : m_model->loss(idx, targets);
}

void Trainer::trainStep() {
  const bool syncChecked = m_device.is_cuda() && m_step + 1 == m_options.syncCheckStep;
  const compat::SyncCheckScope syncCheck(syncChecked);
  m_model->train();
  for (auto& p : m_model->parameters()) p.mutable_grad() = torch::Tensor();
  if (distributed()) m_sync->beginStep();
  const auto accum = m_config.strategy.grad_accum;
  auto lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(m_device));
  double exposed = 0, overlap = 0, gather = 0, gatherWait = 0;
  for (std::int64_t micro = 0; micro < accum; ++micro) {
    const auto batch = batchTensor(*m_data.train);  // (B, T+1)
    // ddp and zero1 communicate on the last micro-step only; zero2 and zero3 on every one (their shard sums them).
    const bool communicates = distributed() && (m_sync->armsEveryMicroStep() || micro == accum - 1);
    if (communicates) m_sync->arm();
    const compat::AutocastGuard autocast(m_device, m_config.strategy.precision);
    const auto loss = batchLoss(batch);
    const auto share = loss / static_cast<double>(accum);
    (m_scaler ? m_scaler->scaled(share) : share).backward();
    lossSum += loss.detach().to(torch::kFloat) / static_cast<double>(accum);
    if (communicates) {
      m_sync->finish();
      exposed += m_sync->lastExposedSeconds();
      overlap += m_sync->lastOverlapSeconds();
      gather += m_sync->lastGatherSeconds();
      gatherWait += m_sync->lastGatherWaitSeconds();
    }
  }
  if (distributed()) {
    // Every rank must agree on skipping a step, so the finiteness test uses the mean loss.
    m_comm->allreduce(lossSum);
    lossSum.div_(m_comm->worldSize());
  }
  const auto gradNorm = unscaleAndClipGradients(lossSum.options());
  const auto applied = torch::isfinite(lossSum).logical_and(torch::isfinite(gradNorm));
  const double lr = m_schedule.at(m_step);
  m_optimizer->step(lr, applied);
  if (m_scaler) m_scaler->update(applied);
  ++m_step;
  m_tokens += m_tokensPerStep;
  m_reporter.add({m_step, m_tokens, lr, lossSum, gradNorm, applied, exposed, overlap, gather, gatherWait});
  if (syncChecked)
    m_log.info("step " + std::to_string(m_step) +
               " ran with CUDA's sync debug mode at error: nothing in it waited for the device");
}

// The gradients the optimizer steps with, unscaled (fp16) and clipped to grad_clip by their
// global norm, which it returns (0-dim, on the device). Under zero2 and zero3 each rank holds a shard of
// them: the squares are summed over the ranks, so every rank clips by the same norm.
torch::Tensor Trainer::unscaleAndClipGradients(const torch::TensorOptions& floats) {
  std::vector<torch::Tensor> grads;
  const bool shards = distributed() && m_sync->armsEveryMicroStep();
  if (shards) {
    grads.push_back(m_sync->shardGradients());
  } else {
    for (const auto& p : m_model->parameters())
      if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (m_scaler) m_scaler->unscaleGradients(grads);  // before the norm, clipping and the step
  auto squares = torch::zeros({}, floats);
  for (const auto& g : grads) squares += g.to(torch::kFloat).pow(2).sum();
  if (shards) m_comm->allreduce(squares);
  const auto gradNorm = squares.sqrt();
  if (m_config.optimizer.grad_clip > 0) {
    const auto coefficient = (m_config.optimizer.grad_clip / (gradNorm + 1e-6)).clamp_max(1.0);
    for (auto& g : grads) g.mul_(coefficient);
  }
  return gradNorm;
}

std::string Trainer::resumeCause() const {
  if (m_options.slurmRestart <= 0) return {};
  return "requeued by Slurm (restart " + std::to_string(m_options.slurmRestart) + ")";
}

std::string Trainer::stopWords() const {
  if (m_options.stopAtStep > 0 && m_step >= m_options.stopAtStep) return "as --stop-at asked";
  const int signal = m_options.stopRequested ? static_cast<int>(*m_options.stopRequested) : 0;
  std::error_code ec;
  const bool byUser = std::filesystem::exists(m_options.paths.stopRequest(), ec);
  return stopCauseWords(signal, m_options.underSlurm, byUser);
}

bool Trainer::shouldStop(bool last) {
  if (m_options.stopAtStep > 0 && m_step >= m_options.stopAtStep && !last) return true;
  const bool asked = m_options.stopRequested && *m_options.stopRequested;
  if (!distributed()) return asked;
  // Rank 0 decides for everyone: on a request at the end of step s it announces s + 1. No rank
  // can have finished step s + 1 before the announcement (its all-reduce needs rank 0), and
  // none stops at s, so all stop after the same step.
  if (m_stopAt == 0) {
    if (isRank0() && asked) {
      m_stopAt = m_step + 1;
      m_comm->publish("stop_at", std::to_string(m_stopAt));
    } else if (const auto announced = m_comm->lookup("stop_at")) {
      m_stopAt = std::atoll(announced->c_str());
    }
  }
  return m_stopAt > 0 && m_step >= m_stopAt && !last;
}

void Trainer::evaluate() {
  torch::NoGradGuard noGrad;
  m_model->eval();
  m_data.val->rewind();
  auto sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(m_device));
  for (std::int64_t i = 0; i < m_config.eval.batches; ++i) {
    const auto batch = batchTensor(*m_data.val);
    const compat::AutocastGuard autocast(m_device, m_config.strategy.precision);
    sum += batchLoss(batch).to(torch::kFloat);
  }
  if (distributed()) {
    m_comm->allreduce(sum);  // every rank read its own part of the validation windows
    sum.div_(m_comm->worldSize());
  }
  m_reporter.eval(m_step, m_tokens, sum.item<double>() / static_cast<double>(m_config.eval.batches));
}

void Trainer::saveCheckpoint() {
  m_checkpoints->save(parts(), m_step, m_tokens);
  m_lastCheckpointStep = m_step;
}

void Trainer::setStatus(RunStatus status, const std::string& reason) {
  if (!m_options.ownsRunInfo || !isRank0()) return;
  m_options.info.status = status;
  m_options.info.exitReason = reason;
  m_options.info.step = m_step;
  if (const std::string why = writeRunInfo(m_options.paths, m_options.info); !why.empty()) m_log.warn(why);
}

TrainResult trainJob(const RunConfig& config, const TrainOptions& options) {
  try {
    std::filesystem::create_directories(options.paths.logs());
    std::filesystem::create_directories(options.paths.checkpoints());
    return Trainer(config, options).run();
  } catch (const std::exception& e) {  // the run directory itself could not be used
    TrainResult result;
    result.reason = e.what();
    return result;
  }
}

}  // namespace traindeck
