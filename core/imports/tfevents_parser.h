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

// Calls `onScalar` for every scalar in one Event; false when the bytes are not an Event.
// Non-scalar summaries (histograms, images, text) and tensors of plugins other than "scalars"
// (hparams) are skipped.
bool parseTfEvent(std::string_view event, const std::function<void(const TfScalar&)>& onScalar);

// An events file's bytes into `into`, tags prefixed by `tagPrefix`; damage becomes a problem
// naming `label` (the file) and the byte. Returns the framing's scan.
FramedScan readTfEventsBytes(std::string_view bytes, const std::string& label, const std::string& tagPrefix,
                             RunBuilder& into);

}  // namespace traindeck
