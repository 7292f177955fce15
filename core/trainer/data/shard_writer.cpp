// ShardWriter: buffered stdio writes, then header rewrite, fsync and rename in finish().
#include "trainer/data/shard_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trainer/data/data_error.h"

namespace traindeck {

ShardWriter::ShardWriter(std::filesystem::path path, ShardInfo info)
    : m_path(std::move(path)), m_partialPath(m_path.string() + ".partial") {
  m_header.info = std::move(info);
  m_header.tokenWidth = tokenWidthFor(m_header.info.vocabSize);
  if (m_header.info.tokenizer.size() >= kShardTokenizerNameBytes)
    throw DataError("tokenizer name \"" + m_header.info.tokenizer + "\" is too long for a shard header");
  m_file = std::fopen(m_partialPath.c_str(), "wb");
  if (!m_file) throw DataError("cannot create " + m_partialPath.string() + ": " + std::strerror(errno));
  std::setvbuf(m_file, nullptr, _IOFBF, 1 << 20);
  const auto header = encodeShardHeader(m_header);  // count 0 until finish()
  writeBytes(header.data(), header.size());
}

ShardWriter::~ShardWriter() {
  if (m_file) {
    std::fclose(m_file);
    std::error_code ignored;
    std::filesystem::remove(m_partialPath, ignored);
  }
}

void ShardWriter::append(std::span<const std::uint32_t> ids) {
  const std::uint32_t width = m_header.tokenWidth;
  m_scratch.resize(ids.size() * width);
  unsigned char* out = m_scratch.data();
  for (const std::uint32_t id : ids) {
    if (id >= m_header.info.vocabSize)
      throw DataError("token id " + std::to_string(id) + " is outside the " + m_header.info.tokenizer +
                      " vocabulary of " + std::to_string(m_header.info.vocabSize) + " (writing " + m_path.string() +
                      ")");
    out[0] = static_cast<unsigned char>(id);
    out[1] = static_cast<unsigned char>(id >> 8);
    if (width == 4) {
      out[2] = static_cast<unsigned char>(id >> 16);
      out[3] = static_cast<unsigned char>(id >> 24);
    }
    out += width;
  }
  writeBytes(m_scratch.data(), m_scratch.size());
  m_count += ids.size();
}

std::uint64_t ShardWriter::finish() {
  if (!m_file) throw DataError(m_path.string() + " is already finished");
  m_header.tokenCount = m_count;
  const auto header = encodeShardHeader(m_header);
  if (std::fseek(m_file, 0, SEEK_SET) != 0) fail("seek in");
  writeBytes(header.data(), header.size());
  if (std::fflush(m_file) != 0 || ::fsync(fileno(m_file)) != 0) fail("write");
  const int closed = std::fclose(m_file);
  m_file = nullptr;
  std::error_code ec;
  if (closed != 0) {
    std::filesystem::remove(m_partialPath, ec);
    throw DataError("cannot write " + m_partialPath.string() + ": " + std::strerror(errno));
  }
  std::filesystem::rename(m_partialPath, m_path, ec);
  if (ec) {
    std::filesystem::remove(m_partialPath, ec);
    throw DataError("cannot rename " + m_partialPath.string() + " to " + m_path.filename().string() + ": " +
                    ec.message());
  }
  return m_count;
}

void ShardWriter::writeBytes(const void* bytes, std::size_t size) {
  if (size > 0 && std::fwrite(bytes, 1, size, m_file) != size) fail("write");
}

void ShardWriter::fail(const std::string& what) {
  throw DataError("cannot " + what + " " + m_partialPath.string() + ": " + std::strerror(errno));
}

}  // namespace traindeck
