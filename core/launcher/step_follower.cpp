// A resumed run appends to metrics.jsonl, so the file is read from its start: the last train
// record of the earlier attempt is the step the run stands at until the new ones arrive. Lines
// go through the parser every reader of metrics.jsonl uses (runlog/metrics_jsonl_parser.h), so
// the supervisor and the app agree on which records count.
#include "step_follower.h"

#include "runlog/metrics_jsonl_parser.h"

namespace traindeck {

bool StepFollower::update() {
  MetricsBatch batch;
  for (const std::string& line : m_tail.readNewLines()) MetricsJsonlParser::parseLine(line, batch);
  if (batch.train.size() == 0) return false;
  const std::int64_t before = m_step;
  const bool seenBefore = m_seen;
  m_step = batch.train.step.back();
  m_seen = true;
  return m_step != before || !seenBefore;
}

}  // namespace traindeck
