// Records as DESIGN.md's metrics schema has them. A flush reads back every pending step at once
// (one wait for the device, about once a second); tokens/s is the flush interval's average.
#include "train_reporter.h"

#include <algorithm>
#include <cstdlib>

#include "progress_line.h"
#include "runlog/json_value.h"
#include "trainer/torch_compat.h"

namespace traindeck {

namespace {

namespace key = metrics_key;

constexpr double kFlushSeconds = 1.0;
constexpr double kSystemSeconds = 5.0;
constexpr double kProgressLogSeconds = 10.0;

double secondsSince(std::chrono::steady_clock::time_point then) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - then).count();
}

}  // namespace

TrainReporter::TrainReporter(const TrainOptions& options, const torch::Device& device, RankLog& log)
    : m_options(options), m_device(device), m_log(log) {
  if (m_device.is_cuda()) {
    m_gpu = std::make_unique<GpuStats>();
    if (!m_gpu->available())
      m_log.info("NVML (libnvidia-ml.so.1) is not available: no GPU utilization, power or temperature");
  }
  m_lastFlush = m_lastSystem = m_started = m_lastProgressLog = std::chrono::steady_clock::now();
}

void TrainReporter::openMetrics() {
  if (isRank0()) m_metrics = std::make_unique<MetricsWriter>(m_options.paths.metrics());
}

void TrainReporter::begin(std::int64_t parameters, std::int64_t startStep, std::int64_t totalSteps) {
  JsonWriter header = MetricsWriter::record(metrics_kind::kHeader);
  header.field(key::kSchema, kMetricsSchema).field(key::kRunId, m_options.info.id).field(key::kParameters, parameters);
  header.field(key::kWorldSize, m_options.dist.worldSize).field(key::kTokensPerStep, m_basis.tokensPerStep);
  header.field(key::kTotalSteps, totalSteps).field(key::kStartStep, startStep);
  write(header);
  m_started = m_lastFlush = m_lastSystem = m_lastProgressLog = std::chrono::steady_clock::now();
  m_stepsAtStart = m_newestStep = startStep;
  m_totalSteps = totalSteps;
}

bool TrainReporter::flushDue() const {
  return secondsSince(m_lastFlush) >= kFlushSeconds;
}

void TrainReporter::flush(double lr) {
  if (m_pending.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  const double stepMs = 1000.0 * secondsSince(m_lastFlush) / static_cast<double>(m_pending.size());
  const double tokensPerSecond = stepMs > 0 ? static_cast<double>(m_basis.tokensPerStep) / (stepMs / 1000.0) : 0;
  const bool distributed = m_comm != nullptr;
  for (const StepResult& p : m_pending) {
    const double loss = p.loss.item<double>();
    JsonWriter r = MetricsWriter::record(metrics_kind::kTrain);
    r.field(key::kStep, p.step).field(key::kTokens, p.tokens).field(key::kLoss, loss).field(key::kLr, p.lr);
    r.field(key::kGradNorm, p.gradNorm.item<double>())
        .field(key::kTokensPerSecond, tokensPerSecond)
        .field(key::kStepMs, stepMs);
    if (m_basis.peakFlops > 0) r.field(key::kMfu, tokensPerSecond * m_basis.flopsPerToken / m_basis.peakFlops);
    if (distributed) r.field(key::kCommMs, 1000.0 * p.exposedCommSeconds);
    // NCCL completes a work's future when it is queued, so the overlap is measured on the CPU only.
    if (distributed && m_device.is_cpu()) r.field(key::kCommOverlapMs, 1000.0 * p.overlapCommSeconds);
    // zero3 only (the other kinds gather nothing); on the CPU only, for the same reason.
    if (distributed && m_device.is_cpu() && p.gatherCommSeconds > 0)
      r.field(key::kGatherMs, 1000.0 * p.gatherCommSeconds).field(key::kGatherWaitMs, 1000.0 * p.gatherWaitSeconds);
    write(r);
    if (p.applied.item<bool>())
      m_lastLoss = loss;
    else
      reportSkipped(p.step);
    m_newestStep = p.step;
  }
  m_pending.clear();
  m_lastFlush = now;
  // On a terminal, a progress line that rewrites itself; in a log (a supervised rank 0), the
  // same figures as a line every 10 s.
  const bool logProgress =
      !m_options.progressLine && isRank0() && secondsSince(m_lastProgressLog) >= kProgressLogSeconds;
  if (!m_options.progressLine && !logProgress) return;
  const double done = static_cast<double>(m_newestStep - m_stepsAtStart);
  const std::string line = progressLine(
      {m_newestStep, m_totalSteps, m_lastLoss, lr, tokensPerSecond, done > 0 ? secondsSince(m_started) / done : 0});
  if (m_options.progressLine) m_log.progress(line);
  if (logProgress) {
    m_log.info(line);
    m_lastProgressLog = now;
  }
}

void TrainReporter::reportSkipped(std::int64_t step) {
  // Under fp16 a few skipped steps at the start are normal: the loss scale comes down from
  // 65536 until the gradients fit.
  const std::string scale =
      m_scaler ? "; fp16 loss scale now " + std::to_string(static_cast<long long>(m_scaler->scale())) : "";
  event("warn", "non-finite loss or gradient norm: step " + std::to_string(step) + " skipped" + scale, step);
  m_log.warn("step " + std::to_string(step) + ": non-finite loss or gradient norm, optimizer step skipped" + scale);
}

void TrainReporter::writeSystem(bool force) {
  if (!force && secondsSince(m_lastSystem) < kSystemSeconds) return;
  m_lastSystem = std::chrono::steady_clock::now();
  const SystemSample s = m_system.sample();
  // DESIGN.md's system record: util and memory are the rank's device's (the GPU's, through
  // NVML, on CUDA; this process's CPU share and resident memory otherwise).
  JsonWriter mine;
  mine.beginObject().field(key::kRank, m_options.dist.rank).field(key::kDevice, m_device.str());
  const auto gpu = m_gpu && m_device.is_cuda()
                       ? m_gpu->sample(nvmlIndexOfCudaDevice(m_device.index(), std::getenv("CUDA_VISIBLE_DEVICES")))
                       : std::nullopt;
  // The rank's own peak: the allocator's on CUDA (the GPU's mem_used counts every process on
  // it), the resident high-water mark on the CPU, which the kernel updates lazily: never below
  // what was just sampled.
  mine.field(key::kMemPeak, m_device.is_cuda() ? compat::cudaPeakAllocatedBytes(m_device.index())
                                               : std::max(SystemStats::peakRssBytes(), s.rss));
  if (gpu) {
    mine.field(key::kUtil, gpu->util).field(key::kMemUsed, gpu->memUsed).field(key::kMemTotal, gpu->memTotal);
    mine.field(key::kPowerW, gpu->powerWatts).field(key::kTempC, gpu->temperatureC);
    mine.field(key::kCpuUtil, s.util).field(key::kRss, s.rss);
  } else {
    mine.field(key::kUtil, s.util).field(key::kMemUsed, s.rss).field(key::kMemTotal, s.memTotal);
  }
  mine.endObject();
  // Every rank leaves its figures in the store; rank 0 writes the newest of each. No
  // collective: ranks sample on their own clocks.
  if (m_comm && !isRank0()) {
    m_comm->publish("system/" + std::to_string(m_options.dist.rank), mine.str());
    return;
  }
  for (int rank = 0; rank < m_options.dist.worldSize; ++rank) {
    const auto figures =
        rank == 0 ? std::optional<std::string>(mine.str()) : m_comm->lookup("system/" + std::to_string(rank));
    if (!figures) continue;  // that rank has not sampled yet (a slow start): no row rather than an empty one
    const JsonParseResult parsed = parseJson(*figures);
    if (!parsed.ok()) continue;
    const JsonValue& v = parsed.value;
    JsonWriter r = MetricsWriter::record(metrics_kind::kSystem);
    r.field(key::kRank, rank)
        .field(key::kDevice, v.stringOr(key::kDevice, ""))
        .field(key::kUtil, v.numberOr(key::kUtil, 0));
    r.field(key::kMemUsed, v.integerOr(key::kMemUsed, 0)).field(key::kMemTotal, v.integerOr(key::kMemTotal, 0));
    for (const std::string_view name : {key::kMemPeak, key::kPowerW, key::kTempC, key::kCpuUtil, key::kRss})
      if (const JsonValue* value = v.find(name)) {
        if (value->isInteger())
          r.field(name, value->integerOr(0));
        else
          r.field(name, value->numberOr(0));
      }
    write(r);
  }
}

void TrainReporter::writeLastSystem() {
  const bool publishes = m_comm && !isRank0();
  if (publishes) writeSystem(true);
  if (m_comm) m_comm->barrier();
  if (!publishes) writeSystem(true);
}

void TrainReporter::eval(std::int64_t step, std::int64_t tokens, double valLoss) {
  JsonWriter r = MetricsWriter::record(metrics_kind::kEval);
  r.field(key::kStep, step).field(key::kTokens, tokens).field(key::kValLoss, valLoss);
  write(r);
  m_log.info("step " + std::to_string(step) + ": val loss " + std::to_string(valLoss));
}

void TrainReporter::event(const std::string& level, const std::string& message, std::optional<std::int64_t> step) {
  JsonWriter r = MetricsWriter::record(metrics_kind::kEvent);
  r.field(key::kLevel, level).field(key::kRank, m_options.dist.rank).field(key::kMsg, message);
  if (step) r.field(key::kStep, *step);
  write(r);
}

void TrainReporter::write(JsonWriter& record) {
  if (m_metrics) m_metrics->write(record);
}

}  // namespace traindeck
