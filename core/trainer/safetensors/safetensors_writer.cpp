// Names and metadata are checked to be UTF-8 before the header is built: JsonWriter would write
// an invalid sequence as U+FFFD, silently renaming the tensor.
#include "trainer/safetensors/safetensors_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "runlog/json_writer.h"
#include "runlog/utf8.h"
#include "trainer/safetensors/safetensors_error.h"

namespace traindeck {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace {

[[noreturn]] void failWrite(const std::string& path, const std::string& defect) {
  throw SafetensorsError("cannot write safetensors file " + path + ": " + defect);
}

// The position of each dtype in the reference implementation's Dtype enum, which is in
// increasing alignment order; it writes higher ones first so that every tensor is aligned.
int referenceRank(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::U8:
      return 1;
    case TensorDType::F16:
      return 7;
    case TensorDType::BF16:
      return 8;
    case TensorDType::I32:
      return 9;
    case TensorDType::F32:
      return 11;
    case TensorDType::I64:
      return 13;
  }
  return 0;
}

bool writeAll(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, std::min<std::size_t>(size, std::size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void writeSafetensors(const std::string& path, const std::vector<TensorView>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  std::vector<const TensorView*> order;
  std::unordered_set<std::string_view> names;
  for (const TensorView& t : tensors) {
    const std::string tensor = "tensor " + jsonEscape(t.name);
    if (t.name == "__metadata__") failWrite(path, "a tensor may not be called \"__metadata__\"");
    if (!names.insert(t.name).second) failWrite(path, "two tensors are called " + jsonEscape(t.name));
    const std::optional<std::size_t> bytes = tensorByteSize(t.dtype, t.shape);
    if (!bytes) failWrite(path, tensor + " has a negative or impossibly large shape " + shapeText(t.shape));
    if (*bytes != t.byteSize) {
      failWrite(path, tensor + " (" + std::string(dtypeName(t.dtype)) + ", shape " + shapeText(t.shape) + ") comes with " +
                     std::to_string(t.byteSize) + " bytes where it needs " + std::to_string(*bytes));
    }
    if (t.byteSize > 0 && t.data == nullptr) failWrite(path, tensor + " has no data");
    order.push_back(&t);
  }
  std::sort(order.begin(), order.end(), [](const TensorView* a, const TensorView* b) {
    const int rankA = referenceRank(a->dtype);
    const int rankB = referenceRank(b->dtype);
    return rankA != rankB ? rankA > rankB : a->name < b->name;
  });

  const bool allUtf8 =
      std::all_of(tensors.begin(), tensors.end(), [](const TensorView& t) { return isValidUtf8(t.name); }) &&
      std::all_of(metadata.begin(), metadata.end(),
                  [](const auto& kv) { return isValidUtf8(kv.first) && isValidUtf8(kv.second); });
  if (!allUtf8) failWrite(path, "a tensor name or metadata string is not valid UTF-8");

  JsonWriter json;
  json.beginObject();
  if (!metadata.empty()) {
    json.key("__metadata__").beginObject();
    for (const auto& [key, value] : metadata) json.field(key, std::string_view(value));
    json.endObject();
  }
  std::uint64_t offset = 0;
  for (const TensorView* t : order) {
    json.key(t->name).beginObject().field("dtype", dtypeName(t->dtype)).key("shape").beginArray();
    for (const std::int64_t dim : t->shape) json.value(dim);
    json.endArray().key("data_offsets").beginArray();
    json.value(static_cast<std::int64_t>(offset)).value(static_cast<std::int64_t>(offset + t->byteSize));
    json.endArray().endObject();
    offset += t->byteSize;
  }
  json.endObject();
  std::string header = json.str();
  header.append((8 - header.size() % 8) % 8, ' ');
  const std::uint64_t headerSize = header.size();

  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) failWrite(path, std::strerror(errno));
  bool ok = writeAll(fd, &headerSize, sizeof headerSize) && writeAll(fd, header.data(), header.size());
  for (std::size_t i = 0; ok && i < order.size(); ++i) ok = writeAll(fd, order[i]->data, order[i]->byteSize);
  ok = ok && ::fsync(fd) == 0;
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    ::unlink(path.c_str());
    failWrite(path, std::strerror(error));
  }
}

}  // namespace traindeck
