// JSON through core/runlog's writer and parser. Settings keep their types: a number key's
// value is always written with a fraction or exponent ("1.0"), a whole-number key's without,
// so that a trial's id computed again from what was read is the id that was written; reading
// checks exactly that, so an edited setting cannot pass for the trial that ran.
#include "sweep_state_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "runlog/atomic_file.h"
#include "runlog/json_value.h"
#include "runlog/json_writer.h"

namespace traindeck {

namespace {

void writeSetting(JsonWriter& out, const ParamSetting& setting) {
  out.key(setting.key);
  if (const auto* flag = std::get_if<bool>(&setting.value))
    out.value(*flag);
  else if (const auto* whole = std::get_if<std::int64_t>(&setting.value))
    out.value(*whole);
  else if (std::holds_alternative<double>(setting.value))
    out.raw(paramValueYaml(setting.value));  // "0.0003", "1.0": a YAML float is a JSON number
  else
    out.value(std::get<std::string>(setting.value));
}

void writeTrial(JsonWriter& out, const TrialRecord& trial) {
  out.beginObject().field("id", trial.params.id).field("name", trial.params.name).key("settings").beginObject();
  for (const ParamSetting& setting : trial.params.settings) writeSetting(out, setting);
  out.endObject();
  if (trial.params.seed) out.field("seed_key", trial.params.seedKey).field("seed", *trial.params.seed);
  out.field("state", trialStateName(trial.state)).field("retries", trial.retries).field("run", trial.runFolder);
  out.field("cleared_rung", trial.clearedRung);
  if (trial.metric) out.field("metric", *trial.metric);
  out.field("tokens", trial.tokens);
  if (!trial.note.empty()) out.field("note", trial.note);
  out.key("rungs").beginArray();
  for (const RungResult& r : trial.rungs)
    out.beginObject().field("rung", r.rung).field("at", r.at).field("metric", r.metric).endObject();
  out.endArray().endObject();
}

std::optional<ParamValue> readSetting(const JsonValue& value) {
  switch (value.type()) {
    case JsonValue::Type::Bool:
      return value.boolOr(false);
    case JsonValue::Type::String:
      return value.text();
    case JsonValue::Type::Number:
      if (value.isWrittenAsInteger()) {
        if (!value.isInteger()) return std::nullopt;
        return value.integerOr(0);
      }
      return value.numberOr(0);
    default:
      return std::nullopt;
  }
}

// One trial, or the reason it cannot be read.
std::string readTrial(const JsonValue& item, TrialRecord& trial) {
  if (!item.isObject()) return "is not an object";
  trial.params.id = item.stringOr("id", "");
  trial.params.name = item.stringOr("name", "");
  if (trial.params.id.size() != 16) return "has no 16-digit id";
  const JsonValue* settings = item.find("settings");
  if (!settings || !settings->isObject()) return "has no settings object";
  for (const auto& [key, value] : settings->members()) {
    const auto setting = readSetting(value);
    if (!setting) return "has a setting " + key + " that is not a flag, a number or a text";
    trial.params.settings.push_back({key, *setting});
  }
  if (const JsonValue* seed = item.find("seed")) {
    if (!seed->isInteger()) return "has a seed that is not a whole number";
    trial.params.seed = seed->integerOr(0);
    trial.params.seedKey = item.stringOr("seed_key", "seed");
  }
  if (trialId(trial.params.settings, trial.params.seedKey, trial.params.seed) != trial.params.id)
    return "has settings that do not match its id (was the file edited by hand?)";
  const auto state = trialStateFromName(item.stringOr("state", ""));
  if (!state) return "has an unknown state '" + item.stringOr("state", "") + "'";
  trial.state = *state;
  trial.retries = static_cast<int>(item.integerOr("retries", 0));
  trial.runFolder = item.stringOr("run", "");
  trial.clearedRung = static_cast<int>(item.integerOr("cleared_rung", -1));
  if (const JsonValue* metric = item.find("metric"); metric && metric->type() != JsonValue::Type::Null)
    trial.metric = metric->isNumber() ? metric->numberOr(0) : std::nan("");
  else if (metric)
    trial.metric = std::nan("");  // written as null: it was measured, and not a number
  trial.tokens = item.integerOr("tokens", 0);
  trial.note = item.stringOr("note", "");
  if (const JsonValue* rungs = item.find("rungs")) {
    for (const JsonValue& r : rungs->items()) {
      if (!r.isObject() || !r.find("rung") || !r.find("rung")->isInteger()) return "has a rung result without its rung";
      const JsonValue* metric = r.find("metric");
      trial.rungs.push_back({static_cast<int>(r.integerOr("rung", 0)), r.integerOr("at", 0),
                             metric && metric->isNumber() ? metric->numberOr(0) : std::nan("")});
    }
  }
  return {};
}

// The file's bytes; nullopt when it exists but cannot be read.
std::optional<std::string> readFileText(const std::string& path, bool& missing) {
  std::error_code ec;
  missing = !std::filesystem::exists(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (missing) return std::string();
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string sweepStateJson(const SweepState& state) {
  JsonWriter out;
  out.beginObject().field("schema", SweepState::kSchema).field("sweep", state.sweepFile);
  out.field("elapsed_s", state.elapsedSeconds).key("places").beginArray();
  for (const PlaceRecord& place : state.places) {
    out.beginObject().field("name", place.name).field("slots", place.slotCount);
    if (!place.host.empty()) out.field("host", place.host);
    if (!place.identity.empty()) out.field("identity", place.identity);
    if (!place.proxyCommand.empty()) out.field("proxy_command", place.proxyCommand);
    if (place.pack > 1) out.field("pack", place.pack);
    out.endObject();
  }
  out.endArray().key("trials").beginArray();
  for (const TrialRecord& trial : state.trials) writeTrial(out, trial);
  out.endArray().endObject();
  return out.str() + "\n";
}

SweepStateRead parseSweepState(std::string_view json) {
  SweepStateRead result;
  const JsonParseResult parsed = parseJson(json);
  if (!parsed.ok()) {
    result.error = "is not valid JSON (" + parsed.error + "); a write cut short, or an edit?";
    return result;
  }
  const JsonValue& root = parsed.value;
  const std::int64_t schema = root.integerOr("schema", 0);
  if (!root.isObject() || !root.find("trials") || !root.find("trials")->isArray())
    result.error = "is not a sweep state (no trials list)";
  else if (schema != SweepState::kSchema)
    result.error = "has schema " + std::to_string(schema) + "; this TrainDeck reads schema " +
                   std::to_string(SweepState::kSchema) +
                   (schema > SweepState::kSchema ? " (a newer TrainDeck wrote it)" : "");
  if (!result.ok()) return result;
  result.state.sweepFile = root.stringOr("sweep", "");
  result.state.elapsedSeconds = root.numberOr("elapsed_s", 0);
  if (const JsonValue* places = root.find("places"); places && places->isArray())
    for (const JsonValue& p : places->items()) {
      const std::int64_t slots = p.integerOr("slots", 0);
      if (!p.isObject() || slots < 1) {
        result.error = "has a place without its slots (a whole number from 1)";
        return result;
      }
      result.state.places.push_back({p.stringOr("name", ""), static_cast<int>(std::min<std::int64_t>(slots, 4096)),
                                     p.stringOr("host", ""), p.stringOr("identity", ""),
                                     p.stringOr("proxy_command", ""),
                                     static_cast<int>(std::clamp<std::int64_t>(p.integerOr("pack", 1), 1, 4096))});
    }
  std::set<std::string> ids;
  for (const JsonValue& item : root.find("trials")->items()) {
    TrialRecord trial;
    const std::string why = readTrial(item, trial);
    const std::string which = "trial " + std::to_string(result.state.trials.size() + 1) +
                              (trial.params.name.empty() ? "" : " (" + trial.params.name + ")");
    if (!why.empty())
      result.error = which + " " + why;
    else if (!ids.insert(trial.params.id).second)
      result.error = which + " repeats the id " + trial.params.id;
    if (!result.ok()) {
      result.state = SweepState{};
      return result;
    }
    result.state.trials.push_back(std::move(trial));
  }
  return result;
}

bool isSweepFolder(const std::string& dir) {
  std::error_code ec;
  return !dir.empty() && std::filesystem::is_regular_file(std::filesystem::path(dir) / kSweepStateFile, ec);
}

std::string previousSweepStatePath(const std::string& path) {
  return path + ".previous";
}

SweepStateRead readSweepState(const std::string& path) {
  bool missing = false;
  const std::optional<std::string> text = readFileText(path, missing);
  SweepStateRead result;
  if (missing) {
    result.missing = true;
    return result;
  }
  if (!text) {
    result.error = path + " cannot be read (may you read it?)";
    return result;
  }
  result = parseSweepState(*text);
  if (!result.ok()) {
    std::error_code ec;
    const std::string previous = previousSweepStatePath(path);
    result.error = path + " " + result.error + ". It was left as it is" +
                   (std::filesystem::exists(previous, ec) ? "; the version before the last write is " + previous : "") +
                   ".";
  }
  return result;
}

std::string writeSweepState(const SweepState& state, const std::string& path) {
  bool missing = false;
  const std::optional<std::string> current = readFileText(path, missing);
  if (!missing && current && parseSweepState(*current).ok())
    if (std::string error = writeFileAtomically(previousSweepStatePath(path), *current); !error.empty()) return error;
  return writeFileAtomically(path, sweepStateJson(state));
}

}  // namespace traindeck
