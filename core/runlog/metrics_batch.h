// What a run's metrics.jsonl holds, as columns: the follower parses new lines into a batch in
// its worker thread and hands it over (immutable, by value); the GUI appends batches to its
// store. Columns keep memory per point small (a train point is 48 bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runlog/huge_pages.h"

namespace traindeck {

struct TrainColumns {  // one entry per `train` record, in file order
  std::vector<std::int64_t> step, tokens;
  std::vector<double> time;                                             // unix seconds
  std::vector<float> loss, lr, gradNorm, tokensPerSecond, stepMs, mfu;  // NaN where absent
  std::size_t size() const { return step.size(); }
};

// `from`'s rows after `into`'s, column by column.
inline void appendRows(TrainColumns& into, const TrainColumns& from) {
  const auto add = [](auto& to, const auto& rows) {
    if (to.empty()) reserveHuge(to, rows.size());  // a long history into an empty store
    to.insert(to.end(), rows.begin(), rows.end());
  };
  add(into.step, from.step);
  add(into.tokens, from.tokens);
  add(into.time, from.time);
  add(into.loss, from.loss);
  add(into.lr, from.lr);
  add(into.gradNorm, from.gradNorm);
  add(into.tokensPerSecond, from.tokensPerSecond);
  add(into.stepMs, from.stepMs);
  add(into.mfu, from.mfu);
}

// Room for `n` rows in every column (address space until written: see reserveHuge).
inline void reserveRows(TrainColumns& t, std::size_t n) {
  for (auto* column : {&t.step, &t.tokens}) reserveHuge(*column, n);
  reserveHuge(t.time, n);
  for (auto* column : {&t.loss, &t.lr, &t.gradNorm, &t.tokensPerSecond, &t.stepMs, &t.mfu}) reserveHuge(*column, n);
}

struct EvalColumns {
  std::vector<std::int64_t> step, tokens;
  std::vector<double> time;
  std::vector<float> valLoss;
  std::size_t size() const { return step.size(); }
};

// `from`'s rows after `into`'s.
inline void appendRows(EvalColumns& into, const EvalColumns& from) {
  const auto add = [](auto& to, const auto& rows) {
    if (to.empty()) reserveHuge(to, rows.size());  // a long history into an empty store
    to.insert(to.end(), rows.begin(), rows.end());
  };
  add(into.step, from.step);
  add(into.tokens, from.tokens);
  add(into.time, from.time);
  add(into.valLoss, from.valLoss);
}

struct SystemPoint {
  int rank = 0;
  std::string device;  // "cpu", "cuda:0"
  double time = 0;
  float util = 0;  // 0..1
  std::int64_t memUsed = 0, memTotal = 0;
  float powerW = -1, tempC = -1;  // -1: not reported
};

struct EventPoint {
  double time = 0;
  std::int64_t step = -1;  // -1: not tied to a step
  std::string level;       // info, warn, error
  int rank = 0;
  std::string message;
};

struct RunHeader {  // the newest `header` record
  std::string runId;
  std::int64_t parameters = 0, worldSize = 1, tokensPerStep = 0, totalSteps = 0, startStep = 0;
  double time = 0;
};

struct MetricsBatch {
  bool restart = false;  // the file was replaced or truncated: drop what came before
  bool hasHeader = false;
  RunHeader header;  // valid when hasHeader
  TrainColumns train;
  EvalColumns eval;
  std::vector<SystemPoint> system;
  std::vector<EventPoint> events;
  int garbageLines = 0;  // lines that were not JSON objects, skipped
  bool empty() const {
    return !restart && !hasHeader && train.size() == 0 && eval.size() == 0 && system.empty() && events.empty() &&
           garbageLines == 0;
  }
};

}  // namespace traindeck
