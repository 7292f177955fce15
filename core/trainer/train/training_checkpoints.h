// The whole training state of every rank, saved and restored: weights, the optimizer's whole
// state (both summed into rank 0 tensor by tensor as the file is written, under zero1/2/3), the
// fp16 loss scale, each rank's random state, and the step, tokens and data cursor. Rank 0 alone
// reads and writes the files (Checkpointer); the others give and take theirs through
// collectives, so nodes need no shared file system.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <torch/torch.h>

#include "checkpointer.h"
#include "optim/loss_scaler.h"
#include "optim/optimizer.h"
#include "rank_log.h"
#include "train/batch_source.h"
#include "train_reporter.h"
#include "trainer/dist/communicator.h"
#include "trainer/dist/sharded_units.h"
#include "trainer/model/gpt2.h"

namespace traindeck {

struct TrainingParts {  // what a checkpoint holds, as the trainer has it
  Gpt2& model;
  Optimizer& optimizer;
  LossScaler* scaler;  // fp16 only
  BatchSource& trainData;
  ShardedUnits* units = nullptr;  // zero3: where the weights are; the model holds placeholders
};

struct ResumePoint {
  std::int64_t step = 0;
  std::int64_t tokens = 0;
};

class TrainingCheckpoints {
 public:
  TrainingCheckpoints(Checkpointer files, Communicator* comm, int rank, int worldSize, RankLog& log,
                      TrainReporter& reporter);

  // Collective: every rank calls it after the same step.
  void save(const TrainingParts& parts, std::int64_t step, std::int64_t tokens);
  // Collective: the newest complete checkpoint applied on every rank, or nothing when there is
  // none. Rank 0 applies it to itself first, so a bad one fails on every rank with rank 0's
  // message instead of leaving the others waiting in a broadcast. `cause` ("requeued by Slurm
  // (restart 2)"), when given, leads the resume's event and log line, and an event says it when
  // there is nothing to resume from.
  std::optional<ResumePoint> resume(const TrainingParts& parts, const torch::Device& device,
                                    const std::string& cause = {});

 private:
  void share(const TrainingParts& parts, LoadedCheckpoint& loaded, const torch::Device& device);
  bool isRank0() const { return m_rank == 0; }

  Checkpointer m_files;
  Communicator* m_comm;  // null with one rank
  int m_rank;
  int m_worldSize;
  RankLog& m_log;
  TrainReporter& m_reporter;
};

}  // namespace traindeck
