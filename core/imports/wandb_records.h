// W&B's Record messages (wandb_internal.proto) as far as a chart needs them: history=2
// (HistoryRecord{item=1 {key=1, nested_key=2, value_json=16}, step=2 {num=1}}), config=5
// (ConfigRecord{update=1 {key=1, nested_key=2, value_json=16}}) and run=17 (RunRecord{run_id=1,
// project=3, config=4, display_name=8, starting_step=14}). Everything else (stats, output,
// files, ...) is skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "imports/run_builder.h"
#include "imports/tfrecord.h"

namespace traindeck {

// Carried from record to record: the step a history without one gets (the last + 1, from the
// RunRecord's starting_step).
struct WandbReadState {
  std::int64_t nextStep = 0;
};

// One Record into `into`; false when the bytes are not a Record.
bool readWandbRecord(std::string_view record, RunBuilder& into, WandbReadState& state);

// A .wandb file's bytes into `into`; damage becomes a problem naming `label` and the byte.
FramedScan readWandbBytes(std::string_view bytes, const std::string& label, RunBuilder& into);

}  // namespace traindeck
