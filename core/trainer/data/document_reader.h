// Streams one input file as documents, in pieces of bounded size: with a separator, a line that
// holds only the separator (before "\n", "\r\n" or the end of the file) ends a document and is
// dropped; without one, the whole file is one document. Empty documents are skipped.
//
// A document longer than `chunkBytes` comes in several pieces, cut after a newline; a single
// line longer than that is cut at a UTF-8 character boundary. Memory stays near 2 x chunkBytes
// + one read block whatever the file size. The bytes of the pieces, concatenated, are exactly
// the document's bytes; only the tokens at a cut may differ from tokenizing it whole.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

namespace traindeck {

class DocumentReader {
 public:
  static constexpr std::size_t kDefaultChunkBytes = 1 << 20;

  // Throws DataError when the file cannot be opened.
  DocumentReader(const std::filesystem::path& path, std::optional<std::string> separator,
                 std::size_t chunkBytes = kDefaultChunkBytes);
  ~DocumentReader();
  DocumentReader(const DocumentReader&) = delete;
  DocumentReader& operator=(const DocumentReader&) = delete;

  // The next piece into `text` (replacing it); `endsDocument` when it is its document's last.
  // False at the end of the file. Throws DataError when a read fails.
  bool next(std::string& text, bool& endsDocument);

  // Bytes of the file accounted for so far: emitted pieces and dropped separator lines.
  std::uint64_t consumedBytes() const { return m_consumed; }

 private:
  bool fill();
  bool isSeparator(std::size_t lineBegin, std::size_t lineEnd) const;  // [begin, end) excludes "\n"
  void take(std::size_t end, std::size_t resume, std::string& text);

  std::filesystem::path m_path;
  std::FILE* m_file = nullptr;
  std::optional<std::string> m_separator;
  std::size_t m_chunkBytes;
  // m_buffer[m_start, m_scan): the current document's text not yet emitted, whole lines unless
  // a long line was cut; m_buffer[m_scan, end): bytes not yet split into lines.
  std::string m_buffer;
  std::size_t m_start = 0;
  std::size_t m_scan = 0;
  bool m_midLine = false;       // m_scan is inside a line that was cut, so it cannot be a separator
  bool m_documentOpen = false;  // pieces of the current document were emitted
  bool m_eof = false;
  bool m_done = false;
  std::uint64_t m_consumed = 0;
};

}  // namespace traindeck
