#include "sweep_status.h"

#include "runlog/json_writer.h"
#include "trial_params.h"

namespace traindeck {

std::string trialStatusJson(const TrialRecord& trial) {
  JsonWriter out;
  out.beginObject().field("trial", trial.params.name).field("id", trial.params.id).key("params").beginObject();
  for (const ParamSetting& setting : trial.params.settings) {
    out.key(setting.key);
    if (const auto* flag = std::get_if<bool>(&setting.value))
      out.value(*flag);
    else if (const auto* whole = std::get_if<std::int64_t>(&setting.value))
      out.value(*whole);
    else if (const auto* number = std::get_if<double>(&setting.value))
      out.value(*number);
    else
      out.value(std::get<std::string>(setting.value));
  }
  if (trial.params.seed) out.field(trial.params.seedKey, *trial.params.seed);
  out.endObject().field("state", trialStateName(trial.state)).field("rung", trial.lastRung()).key("metric");
  if (trial.metric)
    out.value(*trial.metric);  // NaN is written as null
  else
    out.raw("null");
  out.field("run", trial.runFolder);
  if (!trial.note.empty()) out.field("note", trial.note);
  return out.endObject().str();
}

}  // namespace traindeck
