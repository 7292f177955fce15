// What the run list knows of one metric of a run without its points: how many values, the last
// (in file order) with its step, the lowest and the highest with the step each was first
// reached, and from those the best step. Values that are not finite are skipped (absent).
#pragma once

#include <QMap>
#include <QString>
#include <QStringView>
#include <cmath>
#include <cstdint>

#include "imports/imported_run.h"
#include "runlog/metrics_batch.h"

namespace traindeck {

struct MetricSummary {
  qint64 count = 0;
  double last = std::nan("");
  qint64 lastStep = 0;
  double min = std::nan("");
  qint64 minStep = 0;
  double max = std::nan("");
  qint64 maxStep = 0;

  void add(qint64 step, double value);
  // The step of the highest value when higher is better, else of the lowest.
  qint64 bestStep(bool higherIsBetter) const { return higherIsBetter ? maxStep : minStep; }
  double best(bool higherIsBetter) const { return higherIsBetter ? max : min; }
  bool operator==(const MetricSummary&) const = default;
};

// The rule for "best": higher is better for names that say accuracy or a rate of work (their
// last segment, lower-cased, contains acc, f1, auc, precision, recall, bleu, rouge, tokens_per_s,
// throughput or mfu); lower is better for every other name (losses, perplexity, step_ms).
bool higherIsBetter(QStringView metric);

using MetricSummaries = QMap<QString, MetricSummary>;  // by metric name

// TrainDeck's train columns (loss, lr, grad_norm, tokens_per_s, step_ms, mfu) and eval's val_loss,
// in file order after what `into` holds.
void summarizeBatch(const MetricsBatch& batch, MetricSummaries& into);
// Another tool's run: its mapped columns as above, every other scalar under its own name.
void summarizeImportedRun(const ImportedRun& run, MetricSummaries& into);

}  // namespace traindeck
