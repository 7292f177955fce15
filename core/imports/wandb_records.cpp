// History values are JSON text: numbers become scalars (Python's NaN and Infinity spellings
// too); media, tables and strings are skipped. Keys starting with "_" are W&B's own (_step,
// _timestamp, _runtime): _step and _timestamp place the row, the rest are skipped. A row with
// neither a HistoryStep nor _step (version 1 files write auto-steps so) is the previous one + 1.
#include "imports/wandb_records.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "imports/import_files.h"
#include "imports/leveldb_log.h"
#include "imports/proto_reader.h"
#include "runlog/json_value.h"

namespace traindeck {

namespace {

struct WandbItem {
  std::string key;
  std::string_view valueJson;
};

// An item's key: `key`, or its nested keys joined with "." (W&B's own spelling of nested dicts).
bool readItem(std::string_view bytes, WandbItem& item) {
  ProtoReader r(bytes);
  std::string nested;
  while (r.next()) {
    if (r.wire() != ProtoReader::Wire::Bytes) continue;
    if (r.field() == 1) item.key.assign(r.bytes());
    if (r.field() == 2) nested.append(nested.empty() ? "" : ".").append(r.bytes());
    if (r.field() == 16) item.valueJson = r.bytes();
  }
  if (item.key.empty()) item.key = std::move(nested);
  return !r.failed();
}

bool jsonNumber(std::string_view text, double& out) {
  if (text == "NaN")
    out = std::numeric_limits<double>::quiet_NaN();
  else if (text == "Infinity")
    out = std::numeric_limits<double>::infinity();
  else if (text == "-Infinity")
    out = -std::numeric_limits<double>::infinity();
  else {
    const JsonParseResult parsed = parseJson(text);
    if (!parsed.ok() || !parsed.value.isNumber()) return false;
    out = parsed.value.numberOr(0);
  }
  return true;
}

bool readHistory(std::string_view bytes, RunBuilder& into, WandbReadState& state) {
  ProtoReader r(bytes);
  std::vector<WandbItem> items;
  bool hasStep = false;
  std::int64_t step = 0;
  while (r.next()) {
    if (r.wire() != ProtoReader::Wire::Bytes) continue;
    if (r.field() == 1) {
      if (!readItem(r.bytes(), items.emplace_back())) return false;
    } else if (r.field() == 2) {
      ProtoReader s(r.bytes());
      step = 0;  // an empty HistoryStep is step 0
      while (s.next())
        if (s.field() == 1 && s.wire() == ProtoReader::Wire::Varint) step = s.int64();
      if (s.failed()) return false;
      hasStep = true;
    }
  }
  if (r.failed()) return false;
  double time = std::numeric_limits<double>::quiet_NaN(), number = 0;
  for (const WandbItem& item : items) {
    if (item.key == "_timestamp" && jsonNumber(item.valueJson, number)) time = number;
    if (item.key == "_step" && !hasStep && jsonNumber(item.valueJson, number) && number == std::floor(number)) {
      step = static_cast<std::int64_t>(number);
      hasStep = true;
    }
  }
  if (!hasStep) step = state.nextStep;
  state.nextStep = step + 1;
  for (const WandbItem& item : items)
    if (!item.key.empty() && item.key.front() != '_' && jsonNumber(item.valueJson, number))
      into.add(item.key, step, time, number);
  return true;
}

bool readConfig(std::string_view bytes, RunBuilder& into) {
  ProtoReader r(bytes);
  while (r.next()) {
    if (r.field() != 1 || r.wire() != ProtoReader::Wire::Bytes) continue;
    WandbItem item;
    if (!readItem(r.bytes(), item)) return false;
    if (item.key.empty() || item.key == "_wandb") continue;
    const JsonParseResult parsed = parseJson(item.valueJson);
    if (!parsed.ok()) continue;
    // config.yaml's spelling, {"desc": ..., "value": ...}, kept by some writers.
    const JsonValue* value = &parsed.value;
    if (const JsonValue* inner = parsed.value.find("value"); inner != nullptr && parsed.value.size() <= 2)
      value = inner;
    addJsonConfig(*value, into, item.key);
  }
  return !r.failed();
}

bool readRunRecord(std::string_view bytes, RunBuilder& into, WandbReadState& state) {
  ProtoReader r(bytes);
  while (r.next()) {
    // A resumed run's history counts on from starting_step.
    if (r.field() == 14 && r.wire() == ProtoReader::Wire::Varint) state.nextStep = std::max(state.nextStep, r.int64());
    if (r.wire() != ProtoReader::Wire::Bytes) continue;
    if (r.field() == 1 && !r.bytes().empty()) into.setConfig("wandb.run_id", std::string(r.bytes()));
    if (r.field() == 3 && !r.bytes().empty()) into.setConfig("wandb.project", std::string(r.bytes()));
    if (r.field() == 4 && !readConfig(r.bytes(), into)) return false;
    if (r.field() == 8 && !r.bytes().empty()) into.setName(std::string(r.bytes()));
  }
  return !r.failed();
}

}  // namespace

bool readWandbRecord(std::string_view record, RunBuilder& into, WandbReadState& state) {
  ProtoReader r(record);
  while (r.next()) {
    if (r.wire() != ProtoReader::Wire::Bytes) continue;
    bool ok = true;
    if (r.field() == 2) ok = readHistory(r.bytes(), into, state);
    if (r.field() == 5) ok = readConfig(r.bytes(), into);
    if (r.field() == 17) ok = readRunRecord(r.bytes(), into, state);
    if (!ok) return false;
  }
  return !r.failed();
}

FramedScan readWandbBytes(std::string_view bytes, const std::string& label, RunBuilder& into) {
  WandbReadState state;
  int malformed = 0;
  std::size_t firstMalformed = 0;
  FramedScan scan = scanWandbLog(bytes, [&](std::string_view record, std::size_t offset) {
    if (!readWandbRecord(record, into, state) && malformed++ == 0) firstMalformed = offset;
  });
  if (malformed > 0)
    into.addProblem(label + ": " + std::to_string(malformed) + " record(s) from byte " +
                    std::to_string(firstMalformed) + " are not W&B Records; skipped");
  if (!scan.ok())
    into.addProblem(label + ": " + scan.error + "; the " + std::to_string(scan.records) +
                    " records before it are read, the rest of the file is skipped");
  return scan;
}

}  // namespace traindeck
