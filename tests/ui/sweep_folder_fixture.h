// A sweep folder written on the spot, as the runner leaves one: sweep.yaml and its base job,
// sweep.json (writeSweepState) and the trials' run folders with metrics.jsonl. Six trials of
// optimizer.lr (a log range), model.n_embd and schedule.decay (lists); val_loss depends on the
// learning rate only (best at 1e-3), so the best trial and the importance are known:
//   0 lr=1e-3  finished, past rungs 0 and 1, run folder absolute
//   1 lr=1e-4  pruned at rung 0            2 lr=2e-2  pruned at rung 0
//   3 lr=3e-3  running, past rung 0, run folder relative to the sweep folder
//   4 lr=5e-4  failed, its run folder gone   5 lr=2e-4  queued
#pragma once

#include <QDir>
#include <QTemporaryDir>
#include <cmath>

#include "compare_sweep.h"
#include "sweep/sweep_state_file.h"

namespace traindeck::test {

inline constexpr double kSweepRates[] = {1e-3, 1e-4, 2e-2, 3e-3, 5e-4, 2e-4};
inline constexpr std::int64_t kRungTokens[] = {20480, 61440};  // steps 20 and 60, 1024 tokens a step

// The trial's train loss at a step; val_loss is this + 0.3 (compare_sweep.h's writeRun).
inline double sweepTrialLoss(double lr, int step) {
  return 2.0 + std::abs(std::log10(lr) + 3.0) + 3.0 * std::exp(-step / 50.0);
}
inline double sweepTrialValLoss(double lr, int step) {
  return sweepTrialLoss(lr, step) + 0.3;
}

inline QString sweepYaml(const QString& goal = "min") {
  return QString(
             "base: job.yaml\n"
             "method: random\n"
             "seed: 3\n"
             "trials: 6\n"
             "parameters:\n"
             "  optimizer.lr: {min: 1e-4, max: 3e-2, log: true}\n"
             "  model.n_embd: [32, 64]\n"
             "  schedule.decay: {choices: [cosine, linear]}\n"
             "metric: {name: val_loss, goal: %1}\n"
             "early_stopping: {method: asha, unit: tokens, rungs: [20480, 61440], reduction_factor: 3}\n")
      .arg(goal);
}

// Writes the sweep under `root`/sweeps/demo; returns the sweep folder.
inline QString writeSweepFolder(const QString& root, const QString& goal = "min") {
  const QString dir = root + "/sweeps/demo";
  writeText(root + "/data/dataset.json", "{}");
  writeText(root + "/job.yaml",
            "name: tiny\n"
            "model: {n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, block_size: 32, vocab_size: 257}\n"
            "data: {train: data, tokenizer: byte}\n"
            "strategy: {device: cpu}\n");
  writeText(root + "/sweep.yaml", sweepYaml(goal).toUtf8());
  SweepState state;
  state.sweepFile = (root + "/sweep.yaml").toStdString();
  const TrialState states[] = {TrialState::Finished, TrialState::Pruned, TrialState::Pruned,
                               TrialState::Running,  TrialState::Failed, TrialState::Queued};
  const int steps[] = {200, 20, 20, 80, 0, 0};
  for (int i = 0; i < 6; ++i) {
    TrialRecord trial;
    const double lr = kSweepRates[i];
    trial.params = makeTrial({{"optimizer.lr", lr},
                              {"model.n_embd", std::int64_t{i % 2 == 0 ? 32 : 64}},
                              {"schedule.decay", std::string(i % 3 == 0 ? "cosine" : "linear")}},
                             "", std::nullopt);
    trial.state = states[i];
    for (int r = 0; r < 2; ++r)
      if (steps[i] >= (r == 0 ? 20 : 60))
        trial.rungs.push_back({r, kRungTokens[r], sweepTrialValLoss(lr, r == 0 ? 20 : 60)});
    trial.clearedRung = i == 0 ? 1 : i == 3 ? 0 : -1;
    const QString name = QString("trial-%1").arg(i);
    if (steps[i] > 0)
      writeRun(root + "/runs/" + name, QString("optimizer:\n  lr: %1\n").arg(lr), steps[i], 1,
               [lr](int s) { return sweepTrialLoss(lr, s); });
    if (i == 0) trial.runFolder = (root + "/runs/" + name).toStdString();
    if (i == 1 || i == 2 || i == 3) trial.runFolder = "../../runs/" + name.toStdString();
    if (i == 4) trial.runFolder = "../../runs/gone";
    state.trials.push_back(trial);
  }
  QDir().mkpath(dir);
  const std::string error = writeSweepState(state, (dir + "/sweep.json").toStdString());
  if (!error.empty()) qFatal("%s", error.c_str());
  return dir;
}

}  // namespace traindeck::test
