// The training loop of one rank: load or resume, then step, evaluate and checkpoint until the
// schedule ends or a stop is requested. Components (model, optimizer, schedule, batches,
// checkpointer, metrics) do the work; this class decides when.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include <torch/torch.h>

#include "checkpointer.h"
#include "config/run_config.h"
#include "gpu_stats.h"
#include "optim/adamw.h"
#include "optim/loss_scaler.h"
#include "optim/lr_schedule.h"
#include "rank_log.h"
#include "runlog/metrics_writer.h"
#include "system_stats.h"
#include "train/batch_source.h"
#include "train_job.h"
#include "trainer/dist/communicator.h"
#include "trainer/dist/gradient_sync.h"
#include "trainer/dist/sharded_adamw.h"
#include "trainer/model/gpt2.h"

namespace traindeck {

class Trainer {
 public:
  Trainer(const RunConfig& config, const TrainOptions& options);
  TrainResult run();

 private:
  struct PendingStep {  // results still on the device, read back at the next flush
    std::int64_t step;
    std::int64_t tokens;
    double lr;
    torch::Tensor loss, gradNorm, applied;  // loss: the mean over every rank's batches
    double exposedCommSeconds;              // gradient all-reduce time backward did not hide
    double overlapCommSeconds;              // time all-reduces ran alongside backward
  };

  void logRuntime();
  void setUpModelAndOptimizer();
  void setUpDistributed();
  void resumeFromCheckpoint();
  void broadcastParameters();
  double jobPeakFlops() const;
  void shareCheckpoint(std::optional<LoadedCheckpoint>& loaded);
  bool shouldStop(bool last);
  void trainStep();
  torch::Tensor batchTensor(BatchSource& source);  // (B, T+1) on the device
  void flush();
  void maybeWriteSystem(bool force);
  double evaluate();
  void saveCheckpoint();
  NamedTensors optimizerState();
  void event(const std::string& level, const std::string& message, std::optional<std::int64_t> step);
  void write(JsonWriter& record);  // to metrics.jsonl, on rank 0
  void setStatus(RunStatus status, const std::string& reason);
  bool distributed() const { return m_comm != nullptr; }
  bool isRank0() const { return m_options.dist.rank == 0; }

  RunConfig m_config;
  TrainOptions m_options;
  torch::Device m_device;
  RankLog m_log;
  std::unique_ptr<MetricsWriter> m_metrics;  // rank 0 only
  std::unique_ptr<Communicator> m_comm;      // null with one rank
  std::unique_ptr<GradientSync> m_sync;
  Gpt2 m_model{nullptr};
  std::unique_ptr<AdamW> m_optimizer;       // single and ddp: the whole state on every rank
  std::unique_ptr<ShardedAdamW> m_sharded;  // zero1: this rank's shard
  std::unique_ptr<LossScaler> m_scaler;     // fp16 only
  LrSchedule m_schedule;
  BatchSources m_data;
  Checkpointer m_checkpointer;
  SystemStats m_system;
  std::unique_ptr<GpuStats> m_gpu;  // CUDA only

  std::int64_t m_totalSteps;
  std::int64_t m_tokensPerStep;
  std::int64_t m_step = 0;    // optimizer steps completed
  std::int64_t m_tokens = 0;  // training tokens consumed, all ranks
  double m_lastLoss = 0;
  std::int64_t m_lastCheckpointStep = -1;
  std::int64_t m_stopAt = 0;
  double m_flopsPerToken = 0;  // the planner's, for MFU
  double m_peakFlops = 0;  // every device of the job together; 0: unknown  // a stop agreed on by every rank (0: none)
  std::vector<PendingStep> m_pending;
  std::vector<std::int64_t> m_batch;  // reused host buffer
  std::chrono::steady_clock::time_point m_lastFlush, m_lastSystem, m_started, m_lastProgressLog;
  std::int64_t m_stepsAtStart = 0;
};

}  // namespace traindeck
