// Lines are parsed in place where they lie whole in the fed bytes; only a line split across
// feeds is copied. Each line tries the flat fast path, then the strict JSON parser.
#include "runlog/metrics_jsonl_parser.h"

#include <cstring>
#include <limits>

#include "runlog/json_value.h"
#include "runlog/metrics_keys.h"
#include "runlog/metrics_record_scan.h"

namespace traindeck {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float floatOf(const FlatValue& v) {
  return v.type == FlatValue::Type::Number ? static_cast<float>(v.number) : kNaN;
}
double timeOf(const FlatRecord& r) {
  return r[FlatKey::Time].numberOr(std::numeric_limits<double>::quiet_NaN());
}
std::string textOf(const FlatValue& v) {
  return v.type == FlatValue::Type::String ? std::string(v.text) : std::string();
}

// Returns false when the record is of a known kind but unusable (counted as garbage).
bool addRecord(const FlatRecord& r, MetricsBatch& batch) {
  const FlatValue& kind = r[FlatKey::Kind];
  if (kind.type != FlatValue::Type::String) return true;  // no kind: an unknown kind
  const std::string_view k = kind.text;
  if (k == metrics_kind::kTrain) {
    const FlatValue& step = r[FlatKey::Step];
    if (!step.exactInteger) return false;
    TrainColumns& t = batch.train;
    t.step.push_back(step.integer);
    t.tokens.push_back(r[FlatKey::Tokens].integerOr(0));
    t.time.push_back(timeOf(r));
    t.loss.push_back(floatOf(r[FlatKey::Loss]));
    t.lr.push_back(floatOf(r[FlatKey::Lr]));
    t.gradNorm.push_back(floatOf(r[FlatKey::GradNorm]));
    t.tokensPerSecond.push_back(floatOf(r[FlatKey::TokensPerSecond]));
    t.stepMs.push_back(floatOf(r[FlatKey::StepMs]));
    t.mfu.push_back(floatOf(r[FlatKey::Mfu]));
  } else if (k == metrics_kind::kEval) {
    const FlatValue& step = r[FlatKey::Step];
    if (!step.exactInteger) return false;
    EvalColumns& e = batch.eval;
    e.step.push_back(step.integer);
    e.tokens.push_back(r[FlatKey::Tokens].integerOr(0));
    e.time.push_back(timeOf(r));
    e.valLoss.push_back(floatOf(r[FlatKey::ValLoss]));
  } else if (k == metrics_kind::kSystem) {
    SystemPoint s;
    s.rank = static_cast<int>(r[FlatKey::Rank].integerOr(0));
    s.device = textOf(r[FlatKey::Device]);
    s.time = timeOf(r);
    s.util = static_cast<float>(r[FlatKey::Util].numberOr(0));
    s.memUsed = static_cast<std::int64_t>(r[FlatKey::MemUsed].numberOr(0));
    s.memTotal = static_cast<std::int64_t>(r[FlatKey::MemTotal].numberOr(0));
    s.powerW = static_cast<float>(r[FlatKey::PowerW].numberOr(-1));
    s.tempC = static_cast<float>(r[FlatKey::TempC].numberOr(-1));
    batch.system.push_back(std::move(s));
  } else if (k == metrics_kind::kEvent) {
    EventPoint e;
    e.time = timeOf(r);
    e.step = r[FlatKey::Step].integerOr(-1);
    e.level = textOf(r[FlatKey::Level]);
    e.rank = static_cast<int>(r[FlatKey::Rank].integerOr(0));
    e.message = textOf(r[FlatKey::Msg]);
    batch.events.push_back(std::move(e));
  } else if (k == metrics_kind::kHeader) {
    RunHeader& h = batch.header;
    h = RunHeader{};
    h.runId = textOf(r[FlatKey::RunId]);
    h.parameters = r[FlatKey::Parameters].integerOr(0);
    h.worldSize = r[FlatKey::WorldSize].integerOr(1);
    h.tokensPerStep = r[FlatKey::TokensPerStep].integerOr(0);
    h.totalSteps = r[FlatKey::TotalSteps].integerOr(0);
    h.startStep = r[FlatKey::StartStep].integerOr(0);
    h.time = timeOf(r);
    batch.hasHeader = true;
  }
  return true;
}

}  // namespace

void MetricsJsonlParser::parseLine(std::string_view line, MetricsBatch& batch) {
  FlatRecord record;
  if (scanFlatRecord(line, record)) {
    if (!addRecord(record, batch)) ++batch.garbageLines;
    return;
  }
  const JsonParseResult parsed = parseJson(line);
  if (!parsed.ok() || !parsed.value.isObject()) {
    ++batch.garbageLines;
    return;
  }
  record.clear();
  flatRecordFromJson(parsed.value, record);
  if (!addRecord(record, batch)) ++batch.garbageLines;
}

MetricsBatch MetricsJsonlParser::feed(std::string_view bytes) {
  MetricsBatch batch;
  feedInto(bytes, batch);
  return batch;
}

void MetricsJsonlParser::feedInto(std::string_view bytes, MetricsBatch& batch) {
  m_lines.feed(bytes, [&](std::string_view line, bool cut) {
    if (cut)
      ++batch.garbageLines;  // an overlong line is dropped, counted once
    else
      parseLine(line, batch);
  });
}

}  // namespace traindeck
