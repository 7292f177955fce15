// TensorBoard's Event messages, read with ProtoReader: Event{wall_time=1 double, step=2 int64,
// summary=5 Summary{value=1 repeated Value{tag=1, simple_value=2 float, tensor=8 TensorProto}}}.
// Scalars come in three encodings: simple_value (TF1, tensorboardX), a one-element tensor with
// float_val or double_val (PyTorch's new_style), or tensor_content bytes (TF2).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "imports/run_builder.h"
#include "imports/tfrecord.h"

namespace traindeck {

struct TfScalar {
  std::string_view tag;
  std::int64_t step = 0;
  double wallTime = 0;  // unix seconds
  double value = 0;
};

// Calls `onScalar` for every scalar in one Event, and `onHparam` for every hyperparameter of the
// HParams plugin's session start (hparams_plugin.h); false when the bytes are not an Event.
// Non-scalar summaries (histograms, images, text) and other plugins' tensors are skipped.
bool parseTfEvent(std::string_view event, const std::function<void(const TfScalar&)>& onScalar,
                  const std::function<void(std::string_view, std::string)>& onHparam = {});

// An events file's bytes into `into`, tags prefixed by `tagPrefix`, HParams into its config;
// damage, a step counter starting again and a file of no scalars become problems naming `label`
// (the file) and the byte. Returns the framing's scan.
FramedScan readTfEventsBytes(std::string_view bytes, const std::string& label, const std::string& tagPrefix,
                             RunBuilder& into);

}  // namespace traindeck
