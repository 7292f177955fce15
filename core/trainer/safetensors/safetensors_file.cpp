// The whole header is checked before open() returns: a SafetensorsFile either holds a file
// whose every view lies inside the mapping, or was never made. All sizes are 64-bit and
// compared before they are added, since they come from an untrusted file.
#include "trainer/safetensors/safetensors_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "runlog/json_value.h"
#include "runlog/json_writer.h"
#include "trainer/safetensors/safetensors_error.h"

namespace traindeck {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace {

[[noreturn]] void failRead(const std::string& path, const std::string& defect) {
  throw SafetensorsError("safetensors file " + path + " " + defect);
}

struct Entry {
  std::string name;
  TensorDType dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

std::string offsetsText(const Entry& e) {
  return "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
}

// A list of non-negative integers that fit int64, or false.
bool readIndices(const JsonValue* v, std::vector<std::int64_t>& out) {
  if (v == nullptr || !v->isArray()) return false;
  for (const JsonValue& item : v->items()) {
    if (!item.isInteger() || item.integerOr(-1) < 0) return false;
    out.push_back(item.integerOr(0));
  }
  return true;
}

// One tensor's entry, checked on its own: a known dtype, a shape and offsets whose byte counts
// agree, inside a data buffer of `bufferSize` bytes.
Entry readEntry(const std::string& path, const std::string& name, const JsonValue& info, std::uint64_t bufferSize) {
  const std::string tensor = "tensor " + jsonEscape(name);
  if (!info.isObject()) failRead(path, "gives " + tensor + " an entry that is not a JSON object");
  Entry e{name, TensorDType::F32, {}, 0, 0};

  const JsonValue* dtype = info.find("dtype");
  if (dtype == nullptr || !dtype->isString()) failRead(path, "gives " + tensor + " no \"dtype\" string");
  const std::optional<TensorDType> known = dtypeFromName(dtype->text());
  if (!known) {
    failRead(path, "gives " + tensor + " the dtype " + jsonEscape(dtype->text()) +
                   ", which TrainDeck does not read (it reads F32, F16, BF16, I64, I32 and U8)");
  }
  e.dtype = *known;

  if (!readIndices(info.find("shape"), e.shape)) {
    failRead(path, "gives " + tensor + " a \"shape\" that is not a list of non-negative integers");
  }
  std::vector<std::int64_t> offsets;
  if (!readIndices(info.find("data_offsets"), offsets) || offsets.size() != 2) {
    failRead(path, "gives " + tensor + " \"data_offsets\" that are not a pair of non-negative integers [begin, end]");
  }
  e.begin = static_cast<std::uint64_t>(offsets[0]);
  e.end = static_cast<std::uint64_t>(offsets[1]);
  if (e.begin > e.end) failRead(path, "gives " + tensor + " data_offsets " + offsetsText(e) + " that run backwards");
  if (e.end > bufferSize) {
    failRead(path, "gives " + tensor + " data_offsets " + offsetsText(e) + " past the end of its " +
                   std::to_string(bufferSize) + "-byte data buffer: the file is truncated or the offsets are wrong");
  }
  const std::optional<std::size_t> bytes = tensorByteSize(e.dtype, e.shape);
  const std::string described = tensor + " (" + std::string(dtypeName(e.dtype)) + ", shape " + shapeText(e.shape) + ")";
  if (!bytes) failRead(path, "gives " + described + " more elements than memory can address");
  if (*bytes != e.end - e.begin) {
    failRead(path, "gives " + described + " " + std::to_string(e.end - e.begin) + " bytes of data where it needs " +
                   std::to_string(*bytes));
  }
  return e;
}

// The format wants the tensors to tile the data buffer: no byte shared, none left over.
void checkCoverage(const std::string& path, std::vector<Entry>& entries, std::uint64_t bufferSize) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    return a.end != b.end ? a.end < b.end : a.name < b.name;  // names too: the same message every time
  });
  std::uint64_t cursor = 0;
  const Entry* last = nullptr;  // the tensor whose data ends at `cursor`
  for (const Entry& e : entries) {
    if (e.begin < cursor) {
      failRead(path, "gives tensors " + jsonEscape(last->name) + " " + offsetsText(*last) + " and " + jsonEscape(e.name) +
                     " " + offsetsText(e) + " overlapping data");
    }
    if (e.begin > cursor) {
      failRead(path, "leaves bytes [" + std::to_string(cursor) + ", " + std::to_string(e.begin) +
                     ") of its data buffer outside every tensor");
    }
    cursor = e.end;
    last = &e;
  }
  if (cursor < bufferSize) {
    failRead(path, "leaves bytes [" + std::to_string(cursor) + ", " + std::to_string(bufferSize) +
                   ") of its data buffer outside every tensor");
  }
}

}  // namespace

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  SafetensorsFile file;
  file.m_path = path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw SafetensorsError("could not open safetensors file " + path + ": " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    throw SafetensorsError("could not read safetensors file " + path + ": " + std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    failRead(path, "is not a regular file");
  }
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size < 8) {
    ::close(fd);
    failRead(path, "is " + std::to_string(size) + " bytes long, too short for the 8-byte header length: it is truncated");
  }
  void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int mapError = errno;
  ::close(fd);
  if (mapping == MAP_FAILED) {
    throw SafetensorsError("could not map safetensors file " + path + " into memory: " + std::strerror(mapError));
  }
  file.m_mapping = mapping;  // from here on, a throw unmaps it
  file.m_size = size;
  const auto* bytes = static_cast<const char*>(mapping);

  std::uint64_t headerSize = 0;
  std::memcpy(&headerSize, bytes, sizeof headerSize);
  if (headerSize > kMaxHeaderBytes) {
    failRead(path, "declares a " + std::to_string(headerSize) +
                   "-byte header, over the 100 MB limit: it is corrupt or not a safetensors file");
  }
  if (headerSize > size - 8) {
    failRead(path, "declares a " + std::to_string(headerSize) + "-byte header but only " + std::to_string(size - 8) +
                   " bytes follow the header length: the file is truncated");
  }
  const std::string_view header(bytes + 8, headerSize);
  if (header.empty() || header.front() != '{') {
    failRead(path, "has a header that does not start with '{': it is not a safetensors file");
  }
  const JsonParseResult parsed = parseJson(header);
  if (!parsed.ok()) failRead(path, "has a header that is not valid JSON: " + parsed.error);

  const std::uint64_t bufferSize = size - 8 - headerSize;
  const char* buffer = bytes + 8 + headerSize;
  std::vector<Entry> entries;
  std::unordered_set<std::string_view> names;
  for (const auto& [name, info] : parsed.value.members()) {
    if (name == "__metadata__") {
      if (!info.isObject()) failRead(path, "has a \"__metadata__\" entry that is not an object of strings");
      for (const auto& [key, value] : info.members()) {
        if (!value.isString()) failRead(path, "has a \"__metadata__\" entry that is not an object of strings");
        file.m_metadata[key] = value.text();
      }
      continue;
    }
    if (!names.insert(name).second) failRead(path, "names tensor " + jsonEscape(name) + " twice");
    entries.push_back(readEntry(path, name, info, bufferSize));
  }
  checkCoverage(path, entries, bufferSize);

  file.m_tensors.reserve(entries.size());
  for (Entry& e : entries) {
    file.m_tensors.push_back(TensorView{std::move(e.name), e.dtype, std::move(e.shape), buffer + e.begin,
                                        static_cast<std::size_t>(e.end - e.begin)});
  }
  std::sort(file.m_tensors.begin(), file.m_tensors.end(),
            [](const TensorView& a, const TensorView& b) { return a.name < b.name; });
  return file;
}

SafetensorsFile::SafetensorsFile(SafetensorsFile&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_mapping(std::exchange(other.m_mapping, nullptr)),
      m_size(std::exchange(other.m_size, 0)),
      m_tensors(std::move(other.m_tensors)),
      m_metadata(std::move(other.m_metadata)) {}

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& other) noexcept {
  if (this != &other) {
    unmap();
    m_path = std::move(other.m_path);
    m_mapping = std::exchange(other.m_mapping, nullptr);
    m_size = std::exchange(other.m_size, 0);
    m_tensors = std::move(other.m_tensors);
    m_metadata = std::move(other.m_metadata);
  }
  return *this;
}

SafetensorsFile::~SafetensorsFile() {
  unmap();
}

void SafetensorsFile::releasePages(const void* data, std::size_t bytes) const {
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const auto mapped = reinterpret_cast<std::uintptr_t>(m_mapping);
  if (m_mapping == nullptr || begin < mapped || begin + bytes > mapped + m_size) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t last = (begin + bytes) / page * page;
  if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);  // clean: dropped
}

void SafetensorsFile::unmap() {
  if (m_mapping != nullptr) ::munmap(m_mapping, m_size);
  m_mapping = nullptr;
  m_size = 0;
}

const TensorView* SafetensorsFile::find(std::string_view name) const {
  const auto it = std::lower_bound(m_tensors.begin(), m_tensors.end(), name,
                                   [](const TensorView& t, std::string_view n) { return t.name < n; });
  return it != m_tensors.end() && it->name == name ? &*it : nullptr;
}

}  // namespace traindeck
