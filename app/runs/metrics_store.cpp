// Stored steps stay ascending: a record whose step is not past the last stored one first cuts
// the columns at the first stored step >= it (binary search), then is appended.
#include "metrics_store.h"

#include <algorithm>

namespace traindeck {

namespace {

template <class... Columns>
void truncateAll(std::size_t size, Columns&... columns) {
  (columns.resize(size), ...);
}

void truncateFrom(TrainColumns& t, std::int64_t step) {
  const auto cut = static_cast<std::size_t>(std::lower_bound(t.step.begin(), t.step.end(), step) - t.step.begin());
  truncateAll(cut, t.step, t.tokens, t.time, t.loss, t.lr, t.gradNorm, t.tokensPerSecond, t.stepMs, t.mfu);
}

void truncateFrom(EvalColumns& e, std::int64_t step) {
  const auto cut = static_cast<std::size_t>(std::lower_bound(e.step.begin(), e.step.end(), step) - e.step.begin());
  truncateAll(cut, e.step, e.tokens, e.time, e.valLoss);
}

bool ascending(const std::vector<std::int64_t>& steps) {
  return std::adjacent_find(steps.begin(), steps.end(), std::greater_equal<>()) == steps.end();
}

template <class T>
std::size_t heapBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

void MetricsStore::clear() {
  *this = MetricsStore{};
}

void MetricsStore::append(const MetricsBatch& batch) {
  if (batch.restart) clear();
  if (batch.hasHeader) {
    m_header = batch.header;
    m_hasHeader = true;
  }
  m_garbageLines += batch.garbageLines;

  const TrainColumns& in = batch.train;
  TrainColumns& t = m_train;
  // The usual batch goes on past what is stored, steps ascending: its columns are appended
  // whole (a long run's history is a million points).
  if (in.size() > 0 && ascending(in.step) && (t.step.empty() || in.step.front() > t.step.back())) {
    appendRows(t, in);
  } else {
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!t.step.empty() && in.step[i] <= t.step.back()) truncateFrom(t, in.step[i]);
      t.step.push_back(in.step[i]);
      t.tokens.push_back(in.tokens[i]);
      t.time.push_back(in.time[i]);
      t.loss.push_back(in.loss[i]);
      t.lr.push_back(in.lr[i]);
      t.gradNorm.push_back(in.gradNorm[i]);
      t.tokensPerSecond.push_back(in.tokensPerSecond[i]);
      t.stepMs.push_back(in.stepMs[i]);
      t.mfu.push_back(in.mfu[i]);
    }
  }

  const EvalColumns& ein = batch.eval;
  EvalColumns& e = m_eval;
  for (std::size_t i = 0; i < ein.size(); ++i) {
    if (!e.step.empty() && ein.step[i] <= e.step.back()) truncateFrom(e, ein.step[i]);
    e.step.push_back(ein.step[i]);
    e.tokens.push_back(ein.tokens[i]);
    e.time.push_back(ein.time[i]);
    e.valLoss.push_back(ein.valLoss[i]);
  }

  for (const SystemPoint& s : batch.system) m_system[s.rank].push_back(s);
  m_events.insert(m_events.end(), batch.events.begin(), batch.events.end());
}

void MetricsStore::append(MetricsBatch&& batch) {
  if (batch.restart) {
    clear();
    batch.restart = false;
  }
  if (m_train.size() == 0 && ascending(batch.train.step)) {
    m_train = std::move(batch.train);
    batch.train = TrainColumns{};
  }
  if (m_eval.size() == 0 && ascending(batch.eval.step)) {
    m_eval = std::move(batch.eval);
    batch.eval = EvalColumns{};
  }
  append(static_cast<const MetricsBatch&>(batch));  // the rest
}

std::size_t MetricsStore::trainBytes() const {
  const TrainColumns& t = m_train;
  return heapBytes(t.step) + heapBytes(t.tokens) + heapBytes(t.time) + heapBytes(t.loss) + heapBytes(t.lr) +
         heapBytes(t.gradNorm) + heapBytes(t.tokensPerSecond) + heapBytes(t.stepMs) + heapBytes(t.mfu);
}

double MetricsStore::bytesPerTrainPoint() const {
  return m_train.size() == 0 ? 0.0 : static_cast<double>(trainBytes()) / static_cast<double>(m_train.size());
}

}  // namespace traindeck
