// A resumed run appends to metrics.jsonl, so the file is read from its start: the last train
// record of the earlier attempt is the step the run stands at until the new ones arrive.
#include "step_follower.h"

#include "runlog/json_value.h"

namespace traindeck {

bool StepFollower::update() {
  const std::int64_t before = m_step;
  const bool seenBefore = m_seen;
  for (const std::string& line : m_tail.readNewLines()) {
    if (line.find("train") == std::string::npos) continue;  // cheap filter before parsing
    const JsonParseResult parsed = parseJson(line);
    if (!parsed.ok() || parsed.value.stringOr("kind", "") != "train") continue;
    const JsonValue* step = parsed.value.find("step");
    if (!step || !step->isInteger()) continue;
    m_step = step->integerOr(0);
    m_seen = true;
  }
  return m_step != before || m_seen != seenBefore;
}

}  // namespace traindeck
