// Layout: a 40-byte head (magic, version, byte-order mark, body size, body checksum, stamp size),
// then the body: the stamp, the run header, and each kind's records, train and eval as whole
// columns, system points and events field by field. Numbers in the machine's own order (the
// mark tells another order apart). Written piece by piece, the columns straight from the batch;
// read from a mapping, its checksum checked before anything is copied out.
#include "metrics_cache_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bytes_hash.h"
#include "runlog/huge_pages.h"

namespace traindeck {

namespace {

constexpr char kMagic[8] = {'T', 'D', 'M', 'C', 'A', 'C', 'H', 'E'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrderMark = 0x01020304;

struct Head {
  char magic[8];
  std::uint32_t version;
  std::uint32_t byteOrder;
  std::uint64_t bodyBytes;
  std::uint64_t bodyChecksum;
  std::uint64_t stampBytes;
};
static_assert(sizeof(Head) == 40);

// The body as pieces: small fields gathered in owned strings, columns as views of the batch.
class BodyWriter {
 public:
  template <class T>
  void value(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    small().append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void text(const std::string& s) {
    value(static_cast<std::uint32_t>(s.size()));
    small().append(s);
  }
  template <class T>
  void column(const std::vector<T>& v) {
    m_open = nullptr;
    m_pieces.push_back({nullptr, std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T))});
  }
  std::vector<std::string_view> pieces() const {
    std::vector<std::string_view> views;
    for (const Piece& p : m_pieces) views.push_back(p.owned ? std::string_view(*p.owned) : p.view);
    return views;
  }
  std::size_t size() const {
    std::size_t n = 0;
    for (std::string_view p : pieces()) n += p.size();
    return n;
  }

 private:
  struct Piece {
    const std::string* owned;  // a small piece, still growing while it is the open one
    std::string_view view;     // a column
  };
  std::string& small() {
    if (!m_open) {
      m_open = &m_owned.emplace_back();  // a deque: earlier strings stay where they are
      m_pieces.push_back({m_open, {}});
    }
    return *m_open;
  }
  std::deque<std::string> m_owned;
  std::string* m_open = nullptr;
  std::vector<Piece> m_pieces;
};

// A view into the mapped body; every read is bounds-checked, and a failed one stays failed.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : m_rest(body) {}
  bool ok() const { return m_ok; }
  bool atEnd() const { return m_rest.empty(); }
  template <class T>
  T value() {
    T v{};
    if (const char* p = take(sizeof v)) std::memcpy(&v, p, sizeof v);
    return v;
  }
  std::string text() {
    const auto size = value<std::uint32_t>();
    const char* p = take(size);
    return p ? std::string(p, size) : std::string();
  }
  template <class T>
  void column(std::vector<T>& into, std::uint64_t count) {
    if (count > m_rest.size() / sizeof(T)) {
      m_ok = false;
      return;
    }
    reserveHuge(into, static_cast<std::size_t>(count));
    into.resize(static_cast<std::size_t>(count));
    if (const char* p = take(into.size() * sizeof(T))) std::memcpy(into.data(), p, into.size() * sizeof(T));
  }
  // A count of records each at least `minBytes` long: larger than what is left is corrupt.
  std::uint64_t count(std::size_t minBytes) {
    const auto n = value<std::uint64_t>();
    if (n > m_rest.size() / std::max<std::size_t>(minBytes, 1)) m_ok = false;
    return m_ok ? n : 0;
  }

 private:
  const char* take(std::size_t n) {
    if (!m_ok || n > m_rest.size()) {
      m_ok = false;
      return nullptr;
    }
    const char* p = m_rest.data();
    m_rest.remove_prefix(n);
    return p;
  }
  std::string_view m_rest;
  bool m_ok = true;
};

void writeStamp(BodyWriter& w, const MetricsCacheStamp& s) {
  w.text(s.path);
  w.value(s.recordBytes);
  w.value(s.sampledBytes);
  w.value(s.fingerprint);
  w.value(s.fileSize);
  w.value(s.modifiedNs);
}

MetricsCacheStamp readStamp(BodyReader& r) {
  MetricsCacheStamp s;
  s.path = r.text();
  s.recordBytes = r.value<std::int64_t>();
  s.sampledBytes = r.value<std::int64_t>();
  s.fingerprint = r.value<std::uint64_t>();
  s.fileSize = r.value<std::int64_t>();
  s.modifiedNs = r.value<std::int64_t>();
  return s;
}

bool sameLength(const TrainColumns& t) {
  const std::size_t n = t.size();
  return t.tokens.size() == n && t.time.size() == n && t.loss.size() == n && t.lr.size() == n &&
         t.gradNorm.size() == n && t.tokensPerSecond.size() == n && t.stepMs.size() == n && t.mfu.size() == n;
}

bool sameLength(const EvalColumns& e) {
  const std::size_t n = e.size();
  return e.tokens.size() == n && e.time.size() == n && e.valLoss.size() == n;
}

void writeBatch(BodyWriter& w, const MetricsBatch& b) {
  w.value(static_cast<std::uint8_t>(b.hasHeader));
  const RunHeader& h = b.header;
  w.text(h.runId);
  for (std::int64_t v : {h.parameters, h.worldSize, h.tokensPerStep, h.totalSteps, h.startStep}) w.value(v);
  w.value(h.time);
  w.value(static_cast<std::int32_t>(b.garbageLines));

  const TrainColumns& t = b.train;
  w.value(static_cast<std::uint64_t>(t.size()));
  w.column(t.step);
  w.column(t.tokens);
  w.column(t.time);
  for (const std::vector<float>* c : {&t.loss, &t.lr, &t.gradNorm, &t.tokensPerSecond, &t.stepMs, &t.mfu}) w.column(*c);

  const EvalColumns& e = b.eval;
  w.value(static_cast<std::uint64_t>(e.size()));
  w.column(e.step);
  w.column(e.tokens);
  w.column(e.time);
  w.column(e.valLoss);

  w.value(static_cast<std::uint64_t>(b.system.size()));
  for (const SystemPoint& s : b.system) {
    w.value(static_cast<std::int32_t>(s.rank));
    w.text(s.device);
    w.value(s.time);
    w.value(s.util);
    w.value(s.memUsed);
    w.value(s.memTotal);
    w.value(s.powerW);
    w.value(s.tempC);
  }
  w.value(static_cast<std::uint64_t>(b.events.size()));
  for (const EventPoint& e : b.events) {
    w.value(e.time);
    w.value(e.step);
    w.text(e.level);
    w.value(static_cast<std::int32_t>(e.rank));
    w.text(e.message);
  }
}

MetricsBatch readBatch(BodyReader& r) {
  MetricsBatch b;
  b.hasHeader = r.value<std::uint8_t>() != 0;
  RunHeader& h = b.header;
  h.runId = r.text();
  for (std::int64_t* v : {&h.parameters, &h.worldSize, &h.tokensPerStep, &h.totalSteps, &h.startStep})
    *v = r.value<std::int64_t>();
  h.time = r.value<double>();
  b.garbageLines = r.value<std::int32_t>();

  TrainColumns& t = b.train;
  const std::uint64_t trainRows = r.count(48);  // 3 eight-byte and 6 four-byte columns
  r.column(t.step, trainRows);
  r.column(t.tokens, trainRows);
  r.column(t.time, trainRows);
  for (std::vector<float>* c : {&t.loss, &t.lr, &t.gradNorm, &t.tokensPerSecond, &t.stepMs, &t.mfu})
    r.column(*c, trainRows);

  EvalColumns& e = b.eval;
  const std::uint64_t evalRows = r.count(28);
  r.column(e.step, evalRows);
  r.column(e.tokens, evalRows);
  r.column(e.time, evalRows);
  r.column(e.valLoss, evalRows);

  const std::uint64_t systemPoints = r.count(48);
  b.system.reserve(static_cast<std::size_t>(systemPoints));
  for (std::uint64_t i = 0; i < systemPoints && r.ok(); ++i) {
    SystemPoint s;
    s.rank = r.value<std::int32_t>();
    s.device = r.text();
    s.time = r.value<double>();
    s.util = r.value<float>();
    s.memUsed = r.value<std::int64_t>();
    s.memTotal = r.value<std::int64_t>();
    s.powerW = r.value<float>();
    s.tempC = r.value<float>();
    b.system.push_back(std::move(s));
  }
  const std::uint64_t events = r.count(32);
  b.events.reserve(static_cast<std::size_t>(events));
  for (std::uint64_t i = 0; i < events && r.ok(); ++i) {
    EventPoint e;
    e.time = r.value<double>();
    e.step = r.value<std::int64_t>();
    e.level = r.text();
    e.rank = r.value<std::int32_t>();
    e.message = r.text();
    b.events.push_back(std::move(e));
  }
  return b;
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The file mapped read-only; unmapped when it goes.
class Mapping {
 public:
  explicit Mapping(const std::string& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        m_data = static_cast<const char*>(p);
        m_size = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~Mapping() {
    if (m_data) ::munmap(const_cast<char*>(m_data), m_size);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::string_view bytes() const { return {m_data, m_size}; }

 private:
  const char* m_data = nullptr;
  std::size_t m_size = 0;
};

// The head, when it is one of this version and the file holds the body it announces.
std::optional<Head> headOf(std::string_view file) {
  Head head{};
  if (file.size() < sizeof head) return std::nullopt;
  std::memcpy(&head, file.data(), sizeof head);
  if (std::memcmp(head.magic, kMagic, sizeof kMagic) != 0 || head.version != kVersion ||
      head.byteOrder != kByteOrderMark || head.bodyBytes != file.size() - sizeof head ||
      head.stampBytes > head.bodyBytes)
    return std::nullopt;
  return head;
}

}  // namespace

bool writeMetricsCacheFile(const std::string& file, const MetricsCacheStamp& stamp, const MetricsBatch& batch) {
  if (!sameLength(batch.train) || !sameLength(batch.eval)) return false;
  BodyWriter w;
  writeStamp(w, stamp);
  const std::size_t stampBytes = w.size();
  writeBatch(w, batch);
  const std::vector<std::string_view> pieces = w.pieces();
  BytesHasher checksum(kVersion);
  for (std::string_view piece : pieces) checksum.add(piece);
  Head head{};
  std::memcpy(head.magic, kMagic, sizeof kMagic);
  head.version = kVersion;
  head.byteOrder = kByteOrderMark;
  head.bodyBytes = w.size();
  head.bodyChecksum = checksum.value();
  head.stampBytes = stampBytes;
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = writeAll(fd, std::string_view(reinterpret_cast<const char*>(&head), sizeof head));
  for (std::string_view piece : pieces) ok = ok && writeAll(fd, piece);
  return ::close(fd) == 0 && ok;
}

std::optional<MetricsCacheStamp> readMetricsCacheStamp(const std::string& file) {
  const Mapping mapping(file);
  const std::optional<Head> head = headOf(mapping.bytes());
  if (!head) return std::nullopt;
  BodyReader r(mapping.bytes().substr(sizeof(Head), head->stampBytes));
  MetricsCacheStamp stamp = readStamp(r);
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return stamp;
}

std::optional<MetricsCacheContents> readMetricsCacheFile(const std::string& file) {
  const Mapping mapping(file);
  const std::optional<Head> head = headOf(mapping.bytes());
  if (!head) return std::nullopt;
  const std::string_view body = mapping.bytes().substr(sizeof(Head));
  BytesHasher checksum(kVersion);
  checksum.add(body);
  if (checksum.value() != head->bodyChecksum) return std::nullopt;
  BodyReader r(body);
  MetricsCacheContents contents;
  contents.stamp = readStamp(r);
  contents.batch = readBatch(r);
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return contents;
}

}  // namespace traindeck
