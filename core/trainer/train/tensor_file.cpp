// The file order is safetensorsFileOrder over the layouts, which every rank knows, so ranks that
// only produce follow the writer's order without being told it.
#include "tensor_file.h"

#include <memory>
#include <optional>

#include "checkpointer.h"
#include "trainer/safetensors/safetensors_file.h"
#include "trainer/safetensors/safetensors_stream_writer.h"

namespace traindeck {

namespace {

TensorDType dtypeOf(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat:
      return TensorDType::F32;
    case torch::kBFloat16:
      return TensorDType::BF16;
    case torch::kHalf:
      return TensorDType::F16;
    case torch::kLong:
      return TensorDType::I64;
    case torch::kInt:
      return TensorDType::I32;
    case torch::kByte:
      return TensorDType::U8;
    default:
      throw CheckpointError(std::string("cannot store tensors of type ") + c10::toString(type));
  }
}

torch::ScalarType scalarTypeOf(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::F32:
      return torch::kFloat;
    case TensorDType::BF16:
      return torch::kBFloat16;
    case TensorDType::F16:
      return torch::kHalf;
    case TensorDType::I64:
      return torch::kLong;
    case TensorDType::I32:
      return torch::kInt;
    case TensorDType::U8:
      return torch::kByte;
  }
  return torch::kFloat;
}

std::vector<TensorLayout> layoutsOf(const StreamedTensors& tensors) {
  std::vector<TensorLayout> layouts;
  layouts.reserve(tensors.size());
  for (const StreamedTensor& t : tensors) layouts.push_back({t.name, dtypeOf(t.type), t.shape});
  return layouts;
}

void append(SafetensorsStreamWriter& writer, const StreamedTensor& expected, const torch::Tensor& produced) {
  if (!produced.defined() || produced.scalar_type() != expected.type || produced.sizes().vec() != expected.shape)
    throw CheckpointError("tensor " + expected.name + " was not produced with the type and shape announced for it");
  const torch::Tensor host = produced.detach().to(torch::kCPU).contiguous();
  writer.append(host.data_ptr(), static_cast<std::size_t>(host.nbytes()));
}

}  // namespace

void writeStreamedTensorFile(const std::string& path, const StreamedTensors& tensors) {
  std::optional<SafetensorsStreamWriter> writer;
  std::string failure;
  try {
    writer.emplace(path, layoutsOf(tensors), std::map<std::string, std::string>{{"format", "pt"}});
  } catch (const std::exception& e) {
    failure = e.what();
  }
  for (const std::size_t i : safetensorsFileOrder(layoutsOf(tensors))) {
    const torch::Tensor tensor = tensors[i].produce();  // may be a collective: always produced
    if (!failure.empty()) continue;
    try {
      append(*writer, tensors[i], tensor);
    } catch (const std::exception& e) {
      failure = e.what();
      writer.reset();  // closes and removes the partial file
    }
  }
  if (failure.empty()) {
    try {
      writer->finish();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  if (!failure.empty()) throw CheckpointError(failure);
}

void produceInFileOrder(const StreamedTensors& tensors) {
  for (const std::size_t i : safetensorsFileOrder(layoutsOf(tensors))) tensors[i].produce();
}

void writeTensorFile(const std::string& path, const NamedTensors& tensors) {
  writeStreamedTensorFile(path, streamedAtHand(tensors));
}

std::map<std::string, torch::Tensor> readTensorFile(const std::string& path) {
  const SafetensorsFile file = SafetensorsFile::open(path);
  std::map<std::string, torch::Tensor> out;
  for (const TensorView& view : file.tensors()) {
    const auto options = torch::TensorOptions().dtype(scalarTypeOf(view.dtype));
    out[view.name] = torch::from_blob(const_cast<void*>(view.data), view.shape, options).clone();
  }
  return out;
}

MappedTensorFile mapTensorFile(const std::string& path) {
  MappedTensorFile out{std::make_shared<const SafetensorsFile>(SafetensorsFile::open(path)), {}};
  for (const TensorView& view : out.file->tensors()) {
    const auto options = torch::TensorOptions().dtype(scalarTypeOf(view.dtype));
    out.tensors[view.name] = torch::from_blob(
        const_cast<void*>(view.data), view.shape, [file = out.file](void*) {}, options);
  }
  return out;
}

}  // namespace traindeck
