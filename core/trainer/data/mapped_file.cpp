// MappedFile: open, fstat, mmap(PROT_READ, MAP_PRIVATE), close the descriptor (the map keeps
// the file alive). An empty file maps to nothing, which mmap would refuse.
#include "trainer/data/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "trainer/data/data_error.h"

namespace traindeck {
namespace {

std::string reason() {
  return std::strerror(errno);
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw DataError("cannot open " + path.string() + ": " + reason());
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    const std::string why = reason();
    ::close(fd);
    throw DataError("cannot read " + path.string() + ": " + why);
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(fd);
    throw DataError(path.string() + " is not a regular file");
  }
  m_size = static_cast<std::size_t>(status.st_size);
  if (m_size > 0) {
    void* map = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      const std::string why = reason();
      ::close(fd);
      throw DataError("cannot map " + path.string() + " into memory: " + why);
    }
    m_data = static_cast<const unsigned char*>(map);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  release();
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
  }
  return *this;
}

void MappedFile::release() noexcept {
  if (m_data) ::munmap(const_cast<unsigned char*>(m_data), m_size);
  m_data = nullptr;
  m_size = 0;
}

}  // namespace traindeck
