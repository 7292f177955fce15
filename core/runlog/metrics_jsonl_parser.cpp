// Lines are parsed in place where they lie whole in the fed bytes; only a line split across
// feeds is copied. Each line tries the flat fast path, then the strict JSON parser.
#include "runlog/metrics_jsonl_parser.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "runlog/huge_pages.h"
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

// `k` is `kind`, by a compare the compiler inlines (string_view's == calls memcmp; train
// records are nearly every line).
bool isKind(std::string_view k, std::string_view kind) {
  return k.size() == kind.size() && std::memcmp(k.data(), kind.data(), kind.size()) == 0;
}

// Returns false when the record is of a known kind but unusable (counted as garbage).
bool addRecord(const FlatRecord& r, MetricsBatch& batch) {
  const FlatValue& kind = r[FlatKey::Kind];
  if (kind.type != FlatValue::Type::String) return true;  // no kind: an unknown kind
  const std::string_view k = kind.text;
  if (isKind(k, metrics_kind::kTrain)) {
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
  } else if (isKind(k, metrics_kind::kEval)) {
    const FlatValue& step = r[FlatKey::Step];
    if (!step.exactInteger) return false;
    EvalColumns& e = batch.eval;
    e.step.push_back(step.integer);
    e.tokens.push_back(r[FlatKey::Tokens].integerOr(0));
    e.time.push_back(timeOf(r));
    e.valLoss.push_back(floatOf(r[FlatKey::ValLoss]));
  } else if (isKind(k, metrics_kind::kSystem)) {
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
  } else if (isKind(k, metrics_kind::kEvent)) {
    EventPoint e;
    e.time = timeOf(r);
    e.step = r[FlatKey::Step].integerOr(-1);
    e.level = textOf(r[FlatKey::Level]);
    e.rank = static_cast<int>(r[FlatKey::Rank].integerOr(0));
    e.message = textOf(r[FlatKey::Msg]);
    batch.events.push_back(std::move(e));
  } else if (isKind(k, metrics_kind::kHeader)) {
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

// Whole lines (`bytes` ends with a newline) parsed on `threads` threads, each piece starting
// after a newline.
MetricsBatch parseInPieces(std::string_view bytes, unsigned threads) {
  std::vector<std::string_view> pieces;
  std::size_t begin = 0;
  for (unsigned i = 1; i <= threads && begin < bytes.size(); ++i) {
    std::size_t end = i == threads ? bytes.size() : bytes.size() / threads * i;
    if (end < begin) end = begin;
    const std::size_t nl = bytes.find('\n', end == 0 ? 0 : end - 1);
    end = nl == std::string_view::npos ? bytes.size() : nl + 1;
    pieces.push_back(bytes.substr(begin, end - begin));
    begin = end;
  }
  std::vector<MetricsBatch> parsed(pieces.size());
  const auto parse = [&](std::size_t i) {
    // Room for a train record per line up front: growing nine columns by doubling would copy
    // them again and again (and fault in fresh pages each time).
    std::size_t newlines = 0;
    for (const char *p = pieces[i].data(), *end = p + pieces[i].size();
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))) != nullptr; ++p)
      ++newlines;
    reserveRows(parsed[i].train, newlines);
    LineSplitter lines(MetricsJsonlParser::kMaxLineBytes);
    lines.feed(pieces[i], [&](std::string_view line, bool cut) {
      if (cut)
        ++parsed[i].garbageLines;
      else
        MetricsJsonlParser::parseLine(line, parsed[i]);
    });
  };
  std::vector<std::thread> workers;
  for (std::size_t i = 1; i < pieces.size(); ++i) workers.emplace_back(parse, i);
  parse(0);
  for (std::thread& w : workers) w.join();
  return joinBatches(std::move(parsed));
}

}  // namespace

MetricsBatch joinBatches(std::vector<MetricsBatch>&& pieces) {
  if (pieces.empty()) return {};
  std::size_t total = 0;
  for (const MetricsBatch& b : pieces) total += b.train.size();
  MetricsBatch out = std::move(pieces.front());
  reserveRows(out.train, total);
  for (std::size_t i = 1; i < pieces.size(); ++i) appendBatch(out, std::move(pieces[i]));
  return out;
}

void appendBatch(MetricsBatch& into, MetricsBatch&& piece) {
  const bool nothingYet = into.train.size() == 0 && into.eval.size() == 0 && into.system.empty() &&
                          into.events.empty() && !into.hasHeader && into.garbageLines == 0;
  if (nothingYet) {  // taken whole, not copied
    const bool restart = into.restart || piece.restart;
    into = std::move(piece);
    into.restart = restart;
    return;
  }
  if (piece.restart) {
    into = MetricsBatch{};
    into.restart = true;
  }
  if (piece.hasHeader) {
    into.header = std::move(piece.header);
    into.hasHeader = true;
  }
  appendRows(into.train, piece.train);
  appendRows(into.eval, piece.eval);
  std::move(piece.system.begin(), piece.system.end(), std::back_inserter(into.system));
  std::move(piece.events.begin(), piece.events.end(), std::back_inserter(into.events));
  into.garbageLines += piece.garbageLines;
}

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
  const unsigned threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  if (bytes.size() >= kParallelBytes && threads > 1 && m_lines.atLineStart()) {
    const std::size_t lastNewline = bytes.rfind('\n');
    if (lastNewline != std::string_view::npos) {
      appendBatch(batch, parseInPieces(bytes.substr(0, lastNewline + 1), threads));
      bytes.remove_prefix(lastNewline + 1);  // a partial last line is held back as usual
    }
  }
  m_lines.feed(bytes, [&](std::string_view line, bool cut) {
    if (cut)
      ++batch.garbageLines;  // an overlong line is dropped, counted once
    else
      parseLine(line, batch);
  });
}

}  // namespace traindeck
