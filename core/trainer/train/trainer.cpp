// The loop (STYLE.md: a short, readable train()): resume; while steps remain: step, maybe
// evaluate (every N and at the end), maybe checkpoint (every N, at the end, when stopped).
// Per-step results stay on the device and are read back about once a second (flush), so the
// loop never waits for the device just to log.
#include "trainer.h"

#include <malloc.h>
#include <sched.h>

#include <cmath>
#include <filesystem>
#include <thread>

#include "config/config_io.h"
#include "config/devices.h"
#include "config/enum_names.h"
#include "config/planner.h"
#include "config/validate.h"
#include "progress_line.h"
#include "runlog/run_directory.h"
#include "trainer/model/hf_weights.h"
#include "trainer/runtime_info.h"
#include "trainer/torch_compat.h"

namespace traindeck {

namespace {

torch::Device chooseDevice(const StrategyConfig& strategy, int localRank) {
  const bool cuda =
      strategy.device == DeviceKind::Cuda || (strategy.device == DeviceKind::Auto && torch::cuda::is_available());
  return cuda ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(localRank)) : torch::Device(torch::kCPU);
}

// Ranks sharing a node's CPU each keep to their own block of the cores this process may use:
// unpinned, the scheduler moves compute and Gloo threads between cores, and one rank falling
// behind stalls every all-reduce. Threads started later (OpenMP, Gloo) inherit the mask.
// Returns the cores taken ("2-3"), or "" when nothing was pinned.
std::string pinToOwnCores(int localRank, int localWorldSize) {
  if (localWorldSize < 2) return "";
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return "";
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cores.push_back(c);
  const std::size_t block = cores.size() / static_cast<std::size_t>(localWorldSize);
  if (block == 0) return "";
  cpu_set_t mine;
  CPU_ZERO(&mine);
  const std::size_t first = block * static_cast<std::size_t>(localRank);
  for (std::size_t i = first; i < first + block; ++i) CPU_SET(cores[i], &mine);
  if (::sched_setaffinity(0, sizeof mine, &mine) != 0) return "";
  return block == 1 ? std::to_string(cores[first])
                    : std::to_string(cores[first]) + "-" + std::to_string(cores[first + block - 1]);
}

constexpr double kFlushSeconds = 1.0;
constexpr double kSystemSeconds = 5.0;
constexpr double kProgressLogSeconds = 10.0;

}  // namespace

std::int64_t tokensPerStep(const RunConfig& c) {
  return c.model.block_size * c.strategy.micro_batch * c.strategy.grad_accum *
         std::max<std::int64_t>(1, c.strategy.worldSize());
}

std::int64_t totalSteps(const RunConfig& c) {
  const std::int64_t perStep = tokensPerStep(c);
  std::int64_t steps = c.schedule.max_steps;
  if (c.schedule.max_tokens > 0) {
    const std::int64_t byTokens = (c.schedule.max_tokens + perStep - 1) / perStep;
    steps = steps > 0 ? std::min(steps, byTokens) : byTokens;
  }
  return steps;
}

Trainer::Trainer(const RunConfig& config, const TrainOptions& options)
    : m_config(config),
      m_options(options),
      m_device(chooseDevice(config.strategy, options.dist.localRank)),
      m_log(options.paths.rankLog(options.dist.rank), options.echoLog),
      m_schedule(config.optimizer, config.schedule, totalSteps(config)),
      m_checkpointer(options.paths.checkpoints(), static_cast<int>(config.checkpoint.keep)),
      m_totalSteps(totalSteps(config)),
      m_tokensPerStep(tokensPerStep(config)) {}

TrainResult Trainer::run() {
  TrainResult result;
  try {
    if (isRank0()) {
      if (const std::string why = saveConfigFile(m_config, m_options.paths.config()); !why.empty())
        throw std::runtime_error(why);
      m_metrics = std::make_unique<MetricsWriter>(m_options.paths.metrics());
    }
    logRuntime();
    if (m_config.strategy.activation_checkpointing && m_device.is_cuda() && m_config.model.dropout > 0)
      throw std::runtime_error(
          "activation checkpointing with dropout on CUDA is not implemented yet: its recomputed "
          "dropout masks would differ; set model.dropout: 0 or activation_checkpointing: false");
    if (m_options.dist.worldSize > 1) setUpDistributed();
    setUpModelAndOptimizer();
    m_data = openBatchSources(m_config, m_options.dist.rank, m_options.dist.worldSize);
    if (m_options.resume || m_config.checkpoint.resume) resumeFromCheckpoint();
    m_flopsPerToken = makePlan(m_config, thisMachineCpu()).flopsPerToken;
    m_peakFlops = jobPeakFlops();

    JsonWriter header = MetricsWriter::record("header");
    header.field("schema", kMetricsSchema)
        .field("run_id", m_options.info.id)
        .field("parameters", m_model->parameterCount());
    header.field("world_size", m_options.dist.worldSize).field("tokens_per_step", m_tokensPerStep);
    header.field("total_steps", m_totalSteps).field("start_step", m_step);
    write(header);
    m_log.info("training " + formatThousands(m_model->parameterCount()) + " parameters on " + m_device.str() + " for " +
               std::to_string(m_totalSteps) + " steps of " + formatThousands(m_tokensPerStep) + " tokens");
    setStatus(RunStatus::Running, "");

    m_started = m_lastFlush = m_lastSystem = m_lastProgressLog = std::chrono::steady_clock::now();
    m_stepsAtStart = m_step;
    bool stopped = false;
    while (m_step < m_totalSteps) {
      trainStep();
      const bool last = m_step == m_totalSteps;
      stopped = shouldStop(last);
      const double sinceFlush = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_lastFlush).count();
      const bool evalNow = m_data.val && m_config.eval.every > 0 && (m_step % m_config.eval.every == 0 || last);
      const bool saveNow =
          last || stopped || (m_config.checkpoint.every > 0 && m_step % m_config.checkpoint.every == 0);
      if (sinceFlush >= kFlushSeconds || evalNow || saveNow) flush();
      if (evalNow) evaluate();
      if (saveNow) saveCheckpoint();
      maybeWriteSystem(false);
      if (stopped) break;
    }
    if (m_step >= m_totalSteps && m_lastCheckpointStep != m_step) saveCheckpoint();  // resumed at the end
    flush();
    maybeWriteSystem(true);
    m_log.endProgress();
    result.status = stopped ? RunStatus::Stopped : RunStatus::Finished;
    result.reason = stopped ? "stopped at step " + std::to_string(m_step) + " on request; --resume continues"
                            : "finished " + std::to_string(m_step) + " steps";
  } catch (const std::exception& e) {
    m_log.endProgress();
    result.status = RunStatus::Failed;
    result.reason = std::string(e.what()) + (m_step > 0 ? " (at step " + std::to_string(m_step) + ")" : "");
    m_log.error(result.reason);
    try {
      event("error", result.reason, m_step);
    } catch (const std::exception&) {
    }
  }
  result.steps = m_step;
  result.lastLoss = m_lastLoss;
  setStatus(result.status, result.reason);
  m_log.info(result.reason);
  return result;
}

void Trainer::logRuntime() {
  // Keep freed memory in the heap instead of returning every large tensor to the kernel: each
  // step allocates the same big blocks again, and fresh pages cost a fault each (the system
  // time of a CPU step halves with this).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (m_device.is_cpu()) {
    at::set_num_threads(cpuThreadsPerRank(m_options.dist.localWorldSize));
    if (const std::string pinned = pinToOwnCores(m_options.dist.localRank, m_options.dist.localWorldSize);
        !pinned.empty())
      m_log.info("pinned to CPU cores " + pinned + " (one block per rank on this node)");
  }
  if (m_device.is_cuda()) {
    m_gpu = std::make_unique<GpuStats>();
    if (!m_gpu->available())
      m_log.info("NVML (libnvidia-ml.so.1) is not available: no GPU utilization, power or temperature");
  }
  const RuntimeInfo runtime = probeRuntime();
  m_log.info("runtime: " + describeRuntime(runtime));
  if (const std::string warning = blasWarning(runtime); !warning.empty()) {
    m_log.warn(warning);
    event("warn", warning, std::nullopt);
  }
}

torch::Tensor Trainer::batchTensor(BatchSource& source) {
  const auto B = m_config.strategy.micro_batch, T = m_config.model.block_size;
  m_batch.resize(static_cast<std::size_t>(B * (T + 1)));
  source.next(m_batch);
  return torch::from_blob(m_batch.data(), {B, T + 1}, torch::kLong).to(m_device, /*non_blocking=*/false, /*copy=*/true);
}

void Trainer::trainStep() {
  m_model->train();
  for (auto& p : m_model->parameters()) p.mutable_grad() = torch::Tensor();
  const auto accum = m_config.strategy.grad_accum;
  const auto T = m_config.model.block_size;
  auto lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(m_device));
  for (std::int64_t micro = 0; micro < accum; ++micro) {
    const auto batch = batchTensor(*m_data.train);           // (B, T+1)
    if (distributed() && micro == accum - 1) m_sync->arm();  // only the last micro-step communicates
    const compat::AutocastGuard autocast(m_device, m_config.strategy.precision);
    const auto loss = m_model->loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T));
    const auto share = loss / static_cast<double>(accum);
    (m_scaler ? m_scaler->scaled(share) : share).backward();
    lossSum += loss.detach().to(torch::kFloat) / static_cast<double>(accum);
  }
  double exposed = 0, overlap = 0;
  if (distributed()) {
    m_sync->finish();
    exposed = m_sync->lastExposedSeconds();
    overlap = m_sync->lastOverlapSeconds();
    // Every rank must agree on skipping a step, so the finiteness test uses the mean loss.
    m_comm->allreduce(lossSum);
    lossSum.div_(m_comm->worldSize());
  }
  if (m_scaler) m_scaler->unscale(m_model->parameters());  // before the norm, clipping and the step
  auto squares = torch::zeros({}, lossSum.options());
  for (const auto& p : m_model->parameters())
    if (p.grad().defined()) squares += p.grad().to(torch::kFloat).pow(2).sum();
  const auto gradNorm = squares.sqrt();
  if (m_config.optimizer.grad_clip > 0) {
    const auto coefficient = (m_config.optimizer.grad_clip / (gradNorm + 1e-6)).clamp_max(1.0);
    for (auto& p : m_model->parameters())
      if (p.grad().defined()) p.mutable_grad().mul_(coefficient);
  }
  const auto applied = torch::isfinite(lossSum).logical_and(torch::isfinite(gradNorm));
  const double lr = m_schedule.at(m_step);
  if (m_sharded)
    m_sharded->step(lr, applied);
  else
    m_optimizer->step(lr, applied);
  if (m_scaler) m_scaler->update(applied);
  ++m_step;
  m_tokens += m_tokensPerStep;
  m_pending.push_back({m_step, m_tokens, lr, lossSum, gradNorm, applied, exposed, overlap});
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

void Trainer::flush() {
  if (m_pending.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - m_lastFlush).count();
  const double stepMs = 1000.0 * seconds / static_cast<double>(m_pending.size());
  const double tokensPerSecond = stepMs > 0 ? static_cast<double>(m_tokensPerStep) / (stepMs / 1000.0) : 0;
  for (const PendingStep& p : m_pending) {
    const double loss = p.loss.item<double>();
    const double norm = p.gradNorm.item<double>();
    JsonWriter r = MetricsWriter::record("train");
    r.field("step", p.step).field("tokens", p.tokens).field("loss", loss).field("lr", p.lr);
    r.field("grad_norm", norm).field("tokens_per_s", tokensPerSecond).field("step_ms", stepMs);
    if (m_peakFlops > 0) r.field("mfu", tokensPerSecond * m_flopsPerToken / m_peakFlops);
    if (distributed()) r.field("comm_ms", 1000.0 * p.exposedCommSeconds);
    // NCCL completes a work's future when it is queued, so the overlap is measured on the CPU only.
    if (distributed() && m_device.is_cpu()) r.field("comm_overlap_ms", 1000.0 * p.overlapCommSeconds);
    write(r);
    if (!p.applied.item<bool>()) {
      // Under fp16 a few skipped steps at the start are normal: the loss scale comes down
      // from 65536 until the gradients fit.
      const std::string scale =
          m_scaler ? "; fp16 loss scale now " + std::to_string(static_cast<long long>(m_scaler->scale())) : "";
      event("warn", "non-finite loss or gradient norm: step " + std::to_string(p.step) + " skipped" + scale, p.step);
      m_log.warn("step " + std::to_string(p.step) + ": non-finite loss or gradient norm, optimizer step skipped" +
                 scale);
    } else {
      m_lastLoss = loss;
    }
  }
  m_pending.clear();
  m_lastFlush = now;
  // On a terminal, a progress line that rewrites itself; in a log (a supervised rank 0), the
  // same figures as a line every 10 s.
  const bool logProgress = !m_options.progressLine && isRank0() &&
                           std::chrono::duration<double>(now - m_lastProgressLog).count() >= kProgressLogSeconds;
  if (m_options.progressLine || logProgress) {
    const double done = static_cast<double>(m_step - m_stepsAtStart);
    const double elapsed = std::chrono::duration<double>(now - m_started).count();
    const std::string line =
        progressLine({m_step, m_totalSteps, m_lastLoss, m_schedule.at(std::max<std::int64_t>(0, m_step - 1)),
                      tokensPerSecond, done > 0 ? elapsed / done : 0});
    if (m_options.progressLine) m_log.progress(line);
    if (logProgress) {
      m_log.info(line);
      m_lastProgressLog = now;
    }
  }
}

void Trainer::maybeWriteSystem(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && std::chrono::duration<double>(now - m_lastSystem).count() < kSystemSeconds) return;
  m_lastSystem = now;
  const SystemSample s = m_system.sample();
  // DESIGN.md's system record: util and memory are the rank's device's (the GPU's, through
  // NVML, on CUDA; this process's CPU share and resident memory otherwise).
  JsonWriter mine;
  mine.beginObject().field("rank", m_options.dist.rank).field("device", m_device.str());
  const auto gpu = m_gpu && m_device.is_cuda()
                       ? m_gpu->sample(nvmlIndexOfCudaDevice(m_device.index(), std::getenv("CUDA_VISIBLE_DEVICES")))
                       : std::nullopt;
  if (gpu) {
    mine.field("util", gpu->util).field("mem_used", gpu->memUsed).field("mem_total", gpu->memTotal);
    mine.field("power_w", gpu->powerWatts).field("temp_c", gpu->temperatureC);
    mine.field("cpu_util", s.util).field("rss", s.rss);
  } else {
    mine.field("util", s.util).field("mem_used", s.rss).field("mem_total", s.memTotal);
  }
  mine.endObject();
  // Every rank leaves its figures in the store; rank 0 writes the newest of each. No
  // collective: ranks sample on their own clocks.
  if (distributed() && !isRank0()) {
    m_comm->publish("system/" + std::to_string(m_options.dist.rank), mine.str());
    return;
  }
  for (int rank = 0; rank < m_options.dist.worldSize; ++rank) {
    const auto figures =
        rank == 0 ? std::optional<std::string>(mine.str()) : m_comm->lookup("system/" + std::to_string(rank));
    const JsonParseResult parsed = figures ? parseJson(*figures) : JsonParseResult{};
    if (!parsed.ok()) continue;
    const JsonValue& v = parsed.value;
    JsonWriter r = MetricsWriter::record("system");
    r.field("rank", rank).field("device", v.stringOr("device", "")).field("util", v.numberOr("util", 0));
    r.field("mem_used", v.integerOr("mem_used", 0)).field("mem_total", v.integerOr("mem_total", 0));
    for (const char* key : {"power_w", "temp_c", "cpu_util", "rss"})
      if (const JsonValue* value = v.find(key)) {
        if (value->isInteger())
          r.field(key, value->integerOr(0));
        else
          r.field(key, value->numberOr(0));
      }
    write(r);
  }
}

double Trainer::evaluate() {
  torch::NoGradGuard noGrad;
  m_model->eval();
  m_data.val->rewind();
  const auto T = m_config.model.block_size;
  auto sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(m_device));
  for (std::int64_t i = 0; i < m_config.eval.batches; ++i) {
    const auto batch = batchTensor(*m_data.val);
    const compat::AutocastGuard autocast(m_device, m_config.strategy.precision);
    sum += m_model->loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T)).to(torch::kFloat);
  }
  if (distributed()) {
    m_comm->allreduce(sum);  // every rank read its own part of the validation windows
    sum.div_(m_comm->worldSize());
  }
  const double valLoss = sum.item<double>() / static_cast<double>(m_config.eval.batches);
  JsonWriter r = MetricsWriter::record("eval");
  r.field("step", m_step).field("tokens", m_tokens).field("val_loss", valLoss);
  write(r);
  m_log.info("step " + std::to_string(m_step) + ": val loss " + std::to_string(valLoss));
  return valLoss;
}

void Trainer::event(const std::string& level, const std::string& message, std::optional<std::int64_t> step) {
  JsonWriter r = MetricsWriter::record("event");
  r.field("level", level).field("rank", m_options.dist.rank).field("msg", message);
  if (step) r.field("step", *step);
  write(r);
}

void Trainer::write(JsonWriter& record) {
  if (m_metrics) m_metrics->write(record);
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
