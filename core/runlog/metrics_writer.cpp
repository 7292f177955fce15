// Appends whole lines; a short write is retried for the rest of the line.
#include "metrics_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "run_directory.h"

namespace traindeck {

MetricsWriter::MetricsWriter(const std::string& path) : m_path(path) {
  m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (m_fd < 0) throw std::runtime_error("could not open " + path + " for metrics: " + std::strerror(errno));
}

MetricsWriter::~MetricsWriter() {
  if (m_fd >= 0) ::close(m_fd);
}

JsonWriter MetricsWriter::record(std::string_view kind) {
  JsonWriter j;
  j.beginObject()
      .field(metrics_key::kKind, kind)
      .field(metrics_key::kTime, unixSeconds(std::chrono::system_clock::now()));
  return j;
}

void MetricsWriter::write(JsonWriter& record) {
  record.endObject();
  const std::string line = record.str() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("could not append to " + m_path + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace traindeck
