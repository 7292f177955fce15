// POSIX calls rather than iostreams: iostreams cannot fsync.
#include "atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace traindeck {

namespace {
std::string failure(const std::string& what, const std::string& path) {
  return "could not " + what + " " + path + ": " + std::strerror(errno);
}
}  // namespace

std::string writeFileAtomically(const std::string& path, const std::string& contents) {
  const std::filesystem::path target(path);
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return failure("create", temp);
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = failure("write", temp);
      ::close(fd);
      ::unlink(temp.c_str());
      return why;
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = failure("flush", temp);
    ::unlink(temp.c_str());
    return why;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = failure("rename onto", path);
    ::unlink(temp.c_str());
    return why;
  }
  std::string folder = target.parent_path().string();
  if (folder.empty()) folder = ".";
  const int dirFd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return {};
}

}  // namespace traindeck
