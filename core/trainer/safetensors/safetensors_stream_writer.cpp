// Names and metadata are checked to be UTF-8 before the header is built: JsonWriter would write
// an invalid sequence as U+FFFD, silently renaming the tensor. The header's offsets follow from
// the layouts alone, which is what lets the bytes come later, one tensor at a time.
#include "trainer/safetensors/safetensors_stream_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <numeric>
#include <unordered_set>

#include "runlog/json_writer.h"
#include "runlog/utf8.h"
#include "trainer/safetensors/safetensors_error.h"
#include "trainer/safetensors/tensor_view.h"

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

std::string tensorName(const TensorLayout& t) {
  return "tensor " + jsonEscape(t.name);
}

}  // namespace

std::vector<std::size_t> safetensorsFileOrder(const std::vector<TensorLayout>& tensors) {
  std::vector<std::size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const int rankA = referenceRank(tensors[a].dtype);
    const int rankB = referenceRank(tensors[b].dtype);
    return rankA != rankB ? rankA > rankB : tensors[a].name < tensors[b].name;
  });
  return order;
}

SafetensorsStreamWriter::SafetensorsStreamWriter(std::string path, const std::vector<TensorLayout>& tensors,
                                                 const std::map<std::string, std::string>& metadata)
    : m_path(std::move(path)) {
  std::unordered_set<std::string_view> names;
  std::vector<std::size_t> byteSizes;
  for (const TensorLayout& t : tensors) {
    if (t.name == "__metadata__") failWrite(m_path, "a tensor may not be called \"__metadata__\"");
    if (!names.insert(t.name).second) failWrite(m_path, "two tensors are called " + jsonEscape(t.name));
    const std::optional<std::size_t> bytes = tensorByteSize(t.dtype, t.shape);
    if (!bytes) failWrite(m_path, tensorName(t) + " has a negative or impossibly large shape " + shapeText(t.shape));
    byteSizes.push_back(*bytes);
  }
  const bool allUtf8 =
      std::all_of(tensors.begin(), tensors.end(), [](const TensorLayout& t) { return isValidUtf8(t.name); }) &&
      std::all_of(metadata.begin(), metadata.end(),
                  [](const auto& kv) { return isValidUtf8(kv.first) && isValidUtf8(kv.second); });
  if (!allUtf8) failWrite(m_path, "a tensor name or metadata string is not valid UTF-8");
  m_order = safetensorsFileOrder(tensors);

  JsonWriter json;
  json.beginObject();
  if (!metadata.empty()) {
    json.key("__metadata__").beginObject();
    for (const auto& [key, value] : metadata) json.field(key, std::string_view(value));
    json.endObject();
  }
  std::uint64_t offset = 0;
  for (const std::size_t i : m_order) {
    const TensorLayout& t = tensors[i];
    json.key(t.name).beginObject().field("dtype", dtypeName(t.dtype)).key("shape").beginArray();
    for (const std::int64_t dim : t.shape) json.value(dim);
    json.endArray().key("data_offsets").beginArray();
    json.value(static_cast<std::int64_t>(offset)).value(static_cast<std::int64_t>(offset + byteSizes[i]));
    json.endArray().endObject();
    offset += byteSizes[i];
    m_layouts.push_back(t);
    m_byteSizes.push_back(byteSizes[i]);
  }
  json.endObject();
  std::string header = json.str();
  header.append((8 - header.size() % 8) % 8, ' ');
  const std::uint64_t headerSize = header.size();

  m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (m_fd < 0) failWrite(m_path, std::strerror(errno));
  if (!writeAll(m_fd, &headerSize, sizeof headerSize) || !writeAll(m_fd, header.data(), header.size()))
    fail(std::strerror(errno));
}

SafetensorsStreamWriter::~SafetensorsStreamWriter() {
  if (m_fd < 0) return;
  ::close(m_fd);
  ::unlink(m_path.c_str());
}

void SafetensorsStreamWriter::fail(const std::string& defect) {
  if (m_fd >= 0) {
    ::close(m_fd);
    ::unlink(m_path.c_str());
    m_fd = -1;
  }
  failWrite(m_path, defect);
}

void SafetensorsStreamWriter::append(const void* data, std::size_t byteSize) {
  if (m_fd < 0) failWrite(m_path, "the file is already finished or failed");
  if (m_next >= m_order.size()) fail("more tensors appended than the header names");
  const TensorLayout& t = m_layouts[m_next];
  if (byteSize != m_byteSizes[m_next]) {
    fail(tensorName(t) + " (" + std::string(dtypeName(t.dtype)) + ", shape " + shapeText(t.shape) + ") comes with " +
         std::to_string(byteSize) + " bytes where it needs " + std::to_string(m_byteSizes[m_next]));
  }
  if (byteSize > 0 && data == nullptr) fail(tensorName(t) + " has no data");
  if (!writeAll(m_fd, data, byteSize)) fail(std::strerror(errno));
  ++m_next;
}

void SafetensorsStreamWriter::finish() {
  if (m_fd < 0) failWrite(m_path, "the file is already finished or failed");
  if (m_next != m_order.size()) fail(std::to_string(m_order.size() - m_next) + " of its tensors were never appended");
  if (::fsync(m_fd) != 0) fail(std::strerror(errno));
  const int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(m_path.c_str());
    failWrite(m_path, std::strerror(error));
  }
}

}  // namespace traindeck
