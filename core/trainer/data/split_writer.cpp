// SplitWriter: fills a shard to shardTokens, finishes it, and opens the next.
#include "trainer/data/split_writer.h"

#include <algorithm>
#include <cstdio>

namespace traindeck {

SplitWriter::SplitWriter(std::filesystem::path dir, std::string split, ShardInfo info, std::uint64_t shardTokens)
    : m_dir(std::move(dir)),
      m_split(std::move(split)),
      m_info(std::move(info)),
      m_shardTokens(std::max<std::uint64_t>(shardTokens, 1)) {}

std::string SplitWriter::shardFileName(const std::string& split, std::size_t index) {
  char number[32];
  std::snprintf(number, sizeof number, "%06zu", index);
  return split + "-" + number + ".bin";
}

void SplitWriter::append(std::span<const std::uint32_t> ids) {
  while (!ids.empty()) {
    if (!m_current) {
      const std::string name = shardFileName(m_split, m_manifest.shards.size());
      m_current = std::make_unique<ShardWriter>(m_dir / name, m_info);
      m_manifest.shards.push_back({name, 0});
    }
    const std::uint64_t room = m_shardTokens - m_current->tokenCount();
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(room, ids.size()));
    m_current->append(ids.first(take));
    m_manifest.tokens += take;
    ids = ids.subspan(take);
    if (m_current->tokenCount() == m_shardTokens) {
      m_manifest.shards.back().tokens = m_current->finish();
      m_current.reset();
    }
  }
}

SplitManifest SplitWriter::finish() {
  if (m_current) {
    m_manifest.shards.back().tokens = m_current->finish();
    m_current.reset();
  }
  return m_manifest;
}

}  // namespace traindeck
