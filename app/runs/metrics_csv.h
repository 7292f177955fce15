// A run's metrics as one CSV table, for the Monitor's "Metrics as CSV…": a line per step that any
// series has, ascending, with TrainDeck's train columns, val_loss and then each of another tool's
// scalars under its own name; a field is empty where that step has no value (a step written
// twice, as after a resume, keeps its last).
#pragma once

#include <QString>
#include <vector>

#include "imports/imported_run.h"
#include "runlog/metrics_batch.h"

namespace traindeck {

QString metricsCsv(const TrainColumns& train, const EvalColumns& eval, const std::vector<ScalarSeries>& scalars);

// `text` as one CSV field: quoted, with its quotes doubled, where it holds a comma, a quote or a
// line break.
QString csvField(QString text);

}  // namespace traindeck
