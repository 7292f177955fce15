// Reads what was appended to a file since the last read, by path: notices a file that appears
// late, is truncated (size below the offset) or replaced (another inode at the path) and then
// starts again from byte 0 — except where the replacement still begins with what was read (a
// sync tool such as rclone writes a new copy and renames it over the old one): then it goes on
// at the same offset. "Begins with" is checked on the first and the last 4 KiB read, which for
// the append-only files of a run directory tells a grown copy from another history. The one tail of the project: the
// launcher's, the app's followers' and the remote mirror's. Plain POSIX; used by one thread at a time.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace traindeck {

class FileTail {
 public:
  // `startOffset`: where the first file opened is read from (bytes before it are taken as seen,
  // so a replacement of that file starts again from 0).
  explicit FileTail(std::string path, std::int64_t startOffset = 0)
      : m_path(std::move(path)), m_startOffset(startOffset) {}
  ~FileTail();
  FileTail(const FileTail&) = delete;
  FileTail& operator=(const FileTail&) = delete;

  struct Chunk {
    bool restart = false;  // what was read before is void: the file was truncated or replaced
    std::string bytes;     // new bytes, at most the asked maximum
    bool more = false;     // more bytes were already there than were read
  };
  // Never throws for I/O trouble: a missing or unreadable file reads as nothing new.
  Chunk read(std::size_t maxBytes);

  const std::string& path() const { return m_path; }
  off_t offset() const { return m_offset; }

 private:
  void close();
  bool openedFileStartsWithWhatWasRead(off_t size);
  void forgetWhatWasRead(bool known);
  void remember(const std::string& bytes);
  static constexpr std::size_t kEdgeBytes = 4096;
  std::string m_path;
  std::int64_t m_startOffset;
  int m_fd = -1;
  dev_t m_dev = 0;
  ino_t m_inode = 0;
  off_t m_offset = 0;
  bool m_hadFile = false;     // a file was read before: a new one is a restart, or a continuation
  bool m_prefixKnown = true;  // everything before m_offset was read here (not skipped at the start)
  std::string m_first;        // the first bytes read from the file (up to kEdgeBytes)
  std::string m_last;         // the last bytes read, ending at m_offset (up to kEdgeBytes)
};

}  // namespace traindeck
