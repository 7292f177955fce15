// The training loop of one rank: load or resume, then step, evaluate and checkpoint until the
// schedule ends or a stop is requested. Components (model, optimizer, schedule, batches,
// checkpoints, reporter) do the work; this class decides when.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "config/run_config.h"
#include "optim/adamw.h"
#include "optim/loss_scaler.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer.h"
#include "rank_log.h"
#include "train/batch_source.h"
#include "train_job.h"
#include "train_reporter.h"
#include "trainer/dist/communicator.h"
#include "trainer/dist/gradient_exchange.h"
#include "trainer/dist/sharded_gpt2.h"
#include "trainer/model/gpt2.h"
#include "training_checkpoints.h"

namespace traindeck {

class Trainer {
 public:
  Trainer(const RunConfig& config, const TrainOptions& options);
  TrainResult run();

 private:
  void start();  // everything before the first step
  void setUpDistributed();
  void setUpModelAndOptimizer();
  void setUpZero3(const AdamWSettings& settings);
  double jobPeakFlops() const;
  bool shouldStop(bool last);
  std::string stopWords() const;    // why it stops: "on request", "at Slurm's time limit (SIGUSR2)", ...
  std::string resumeCause() const;  // why this run resumes, when it is not the user's --resume
  void trainStep();
  torch::Tensor unscaleAndClipGradients(const torch::TensorOptions& floats);
  torch::Tensor batchTensor(BatchSource& source);       // (B, T+1) on the device
  torch::Tensor batchLoss(const torch::Tensor& batch);  // the model's mean loss on (B, T+1)
  void flush() { m_reporter.flush(m_schedule.at(std::max<std::int64_t>(0, m_step - 1))); }
  void evaluate();
  void saveCheckpoint();
  TrainingParts parts() { return {m_model, *m_optimizer, m_scaler.get(), *m_data.train, m_units}; }
  void setStatus(RunStatus status, const std::string& reason);
  bool distributed() const { return m_comm != nullptr; }
  bool isRank0() const { return m_options.dist.rank == 0; }

  RunConfig m_config;
  TrainOptions m_options;
  torch::Device m_device;
  RankLog m_log;
  TrainReporter m_reporter;
  std::unique_ptr<Communicator> m_comm;      // null with one rank
  std::unique_ptr<GradientExchange> m_sync;  // GradientSync (ddp, zero1, zero2) or ShardedUnits (zero3)
  Gpt2 m_model{nullptr};
  ShardedUnits* m_units = nullptr;              // zero3: m_sync, where the parameters live
  std::unique_ptr<ShardedGpt2> m_shardedModel;  // zero3: runs m_model unit by unit
  std::unique_ptr<Optimizer> m_optimizer;       // AdamW (one rank, ddp) or ShardedAdamW (zero1, zero2, zero3)
  std::unique_ptr<LossScaler> m_scaler;         // fp16 only
  LrSchedule m_schedule;
  BatchSources m_data;
  std::unique_ptr<TrainingCheckpoints> m_checkpoints;

  std::int64_t m_totalSteps;
  std::int64_t m_tokensPerStep;
  std::int64_t m_step = 0;    // optimizer steps completed
  std::int64_t m_tokens = 0;  // training tokens consumed, all ranks
  std::int64_t m_lastCheckpointStep = -1;
  std::int64_t m_stopAt = 0;  // a stop agreed on by every rank (0: none)
};

}  // namespace traindeck
