// The whole-file writer, as a stream writer fed from views that are all at hand.
#include "trainer/safetensors/safetensors_writer.h"

#include "trainer/safetensors/safetensors_stream_writer.h"

namespace traindeck {

void writeSafetensors(const std::string& path, const std::vector<TensorView>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  std::vector<TensorLayout> layouts;
  layouts.reserve(tensors.size());
  for (const TensorView& t : tensors) layouts.push_back({t.name, t.dtype, t.shape});
  SafetensorsStreamWriter writer(path, layouts, metadata);
  for (const std::size_t i : writer.fileOrder()) writer.append(tensors[i].data, tensors[i].byteSize);
  writer.finish();
}

}  // namespace traindeck
