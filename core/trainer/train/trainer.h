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
#include "optim/loss_scaler.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer.h"
#include "rank_log.h"
#include "train/batch_source.h"
#include "train_job.h"
#include "train_reporter.h"
#include "trainer/dist/communicator.h"
#include "trainer/dist/gradient_sync.h"
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
  double jobPeakFlops() const;
  bool shouldStop(bool last);
  std::string resumeCause() const;  // why this run resumes, when it is not the user's --resume
  void trainStep();
  torch::Tensor unscaleAndClipGradients(const torch::TensorOptions& floats);
  torch::Tensor batchTensor(BatchSource& source);  // (B, T+1) on the device
  void flush() { m_reporter.flush(m_schedule.at(std::max<std::int64_t>(0, m_step - 1))); }
  void evaluate();
  void saveCheckpoint();
  TrainingParts parts() { return {m_model, *m_optimizer, m_scaler.get(), *m_data.train}; }
  void setStatus(RunStatus status, const std::string& reason);
  bool distributed() const { return m_comm != nullptr; }
  bool isRank0() const { return m_options.dist.rank == 0; }

  RunConfig m_config;
  TrainOptions m_options;
  torch::Device m_device;
  RankLog m_log;
  TrainReporter m_reporter;
  std::unique_ptr<Communicator> m_comm;  // null with one rank
  std::unique_ptr<GradientSync> m_sync;
  Gpt2 m_model{nullptr};
  std::unique_ptr<Optimizer> m_optimizer;  // AdamW (one rank, ddp) or ShardedAdamW (zero1, zero2)
  std::unique_ptr<LossScaler> m_scaler;    // fp16 only
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
