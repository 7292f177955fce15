// A first picture of a long metrics.jsonl before all of it is parsed: the first line (the
// header), the last complete one, and about `samples` whole lines read where evenly spaced
// offsets fall, parsed as MetricsJsonlParser does. Enough for a chart's pixel columns; the
// whole file, parsed after, replaces it. Plain POSIX, no Qt.
#pragma once

#include <cstddef>
#include <string>

#include "runlog/metrics_batch.h"

namespace traindeck {

// Records in file order; empty when the file cannot be read. Lines longer than 4 KiB are not
// sampled (they are not the train records a chart needs).
MetricsBatch metricsPreview(const std::string& path, std::size_t samples);

}  // namespace traindeck
