// Records as DESIGN.md's metrics schema has them. A flush reads back every pending step at once
// (one wait for the device, about once a second); tokens/s is the flush interval's average.
#include "train_reporter.h"

#include <cstdlib>

#include "progress_line.h"
#include "runlog/json_value.h"

namespace traindeck {

namespace {

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

void TrainReporter::header(std::int64_t parameters, std::int64_t totalSteps, std::int64_t startStep) {
  JsonWriter header = MetricsWriter::record("header");
  header.field("schema", kMetricsSchema).field("run_id", m_options.info.id).field("parameters", parameters);
  header.field("world_size", m_options.dist.worldSize).field("tokens_per_step", m_basis.tokensPerStep);
  header.field("total_steps", totalSteps).field("start_step", startStep);
  write(header);
}

void TrainReporter::startTiming(std::int64_t startStep, std::int64_t totalSteps) {
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
    JsonWriter r = MetricsWriter::record("train");
    r.field("step", p.step).field("tokens", p.tokens).field("loss", loss).field("lr", p.lr);
    r.field("grad_norm", p.gradNorm.item<double>()).field("tokens_per_s", tokensPerSecond).field("step_ms", stepMs);
    if (m_basis.peakFlops > 0) r.field("mfu", tokensPerSecond * m_basis.flopsPerToken / m_basis.peakFlops);
    if (distributed) r.field("comm_ms", 1000.0 * p.exposedCommSeconds);
    // NCCL completes a work's future when it is queued, so the overlap is measured on the CPU only.
    if (distributed && m_device.is_cpu()) r.field("comm_overlap_ms", 1000.0 * p.overlapCommSeconds);
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
  if (m_comm && !isRank0()) {
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

void TrainReporter::eval(std::int64_t step, std::int64_t tokens, double valLoss) {
  JsonWriter r = MetricsWriter::record("eval");
  r.field("step", step).field("tokens", tokens).field("val_loss", valLoss);
  write(r);
  m_log.info("step " + std::to_string(step) + ": val loss " + std::to_string(valLoss));
}

void TrainReporter::event(const std::string& level, const std::string& message, std::optional<std::int64_t> step) {
  JsonWriter r = MetricsWriter::record("event");
  r.field("level", level).field("rank", m_options.dist.rank).field("msg", message);
  if (step) r.field("step", *step);
  write(r);
}

void TrainReporter::write(JsonWriter& record) {
  if (m_metrics) m_metrics->write(record);
}

}  // namespace traindeck
