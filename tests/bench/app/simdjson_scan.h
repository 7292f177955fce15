// bench_metrics' rival to scanFlatRecord(): one metrics.jsonl line into a FlatRecord through
// simdjson's On-Demand API, so that both are timed on the same lines doing the same work.
// Only built where libsimdjson-dev is installed (TRAINDECK_HAVE_SIMDJSON).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "runlog/metrics_record_scan.h"

namespace traindeck::bench {

class SimdjsonScan {
 public:
  SimdjsonScan();
  ~SimdjsonScan();
  // `line` must be followed by at least simdjson's padding (64 readable bytes) in memory.
  bool scan(std::string_view line, FlatRecord& out);
  // Every line of `bytes` (padded likewise) as one document stream; returns the lines read as
  // objects and counts train records into `trainRecords`.
  std::size_t scanStream(std::string_view bytes, std::size_t& trainRecords);

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace traindeck::bench
