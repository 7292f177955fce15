// What one rank reports while it trains: train, eval, system and event records in metrics.jsonl
// (rank 0 writes them all; the other ranks' system figures reach it through the store) and the
// progress line (rewritten on a terminal, every 10 s in a log). Step results arrive as device
// tensors and are read back only at a flush, so reporting never makes the loop wait.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "gpu_stats.h"
#include "optim/loss_scaler.h"
#include "rank_log.h"
#include "runlog/metrics_writer.h"
#include "system_stats.h"
#include "train_job.h"
#include "trainer/dist/communicator.h"

namespace traindeck {

struct StepResult {  // one optimizer step, its figures still on the device
  std::int64_t step;
  std::int64_t tokens;
  double lr;
  torch::Tensor loss, gradNorm, applied;  // loss: the mean over every rank's batches
  double exposedCommSeconds;              // gradient all-reduce time backward did not hide
  double overlapCommSeconds;              // time all-reduces ran alongside backward
  double gatherCommSeconds;               // zero3's parameter all-gathers, start to completion, summed
  double gatherWaitSeconds;               // the part of them the gathers waited for
};

struct ThroughputBasis {  // for tokens/s and MFU
  std::int64_t tokensPerStep = 0;
  double flopsPerToken = 0;  // the planner's
  double peakFlops = 0;      // every device of the job together; 0: unknown (no mfu)
};

class TrainReporter {
 public:
  TrainReporter(const TrainOptions& options, const torch::Device& device, RankLog& log);

  // Rank 0 opens metrics.jsonl (appending on a resume); throws with a sentence if it cannot.
  void openMetrics();
  void setCommunicator(Communicator* comm) { m_comm = comm; }
  void setLossScaler(const LossScaler* scaler) { m_scaler = scaler; }
  void setThroughputBasis(const ThroughputBasis& basis) { m_basis = basis; }

  // Writes the header record and starts the clock for tokens/s and the ETA.
  void begin(std::int64_t parameters, std::int64_t startStep, std::int64_t totalSteps);

  void add(StepResult step) { m_pending.push_back(std::move(step)); }
  bool flushDue() const;  // a second since the last flush
  // Reads back every pending step and writes its record; `lr` is the schedule's at the newest.
  void flush(double lr);
  double lastLoss() const { return m_lastLoss; }  // of the newest applied step flushed

  void writeSystem(bool force);  // every 5 s, or now; collective-free
  // The run's last sample, on every rank at the same point: each rank publishes before a
  // barrier and rank 0 writes after it, so a run shorter than 5 s still has every rank's row.
  void writeLastSystem();
  void eval(std::int64_t step, std::int64_t tokens, double valLoss);
  void event(const std::string& level, const std::string& message, std::optional<std::int64_t> step);

 private:
  void write(JsonWriter& record);
  void reportSkipped(std::int64_t step);
  bool isRank0() const { return m_options.dist.rank == 0; }

  const TrainOptions& m_options;
  torch::Device m_device;
  RankLog& m_log;
  std::unique_ptr<MetricsWriter> m_metrics;  // rank 0 only
  Communicator* m_comm = nullptr;            // null with one rank
  const LossScaler* m_scaler = nullptr;      // fp16 only
  ThroughputBasis m_basis;
  SystemStats m_system;
  std::unique_ptr<GpuStats> m_gpu;  // CUDA only

  std::vector<StepResult> m_pending;
  double m_lastLoss = 0;
  std::int64_t m_newestStep = 0, m_stepsAtStart = 0, m_totalSteps = 0;
  std::chrono::steady_clock::time_point m_lastFlush, m_lastSystem, m_started, m_lastProgressLog;
};

}  // namespace traindeck
