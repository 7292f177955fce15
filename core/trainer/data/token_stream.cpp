// TokenStream: a binary search over shard start offsets finds where a copy begins.
#include "trainer/data/token_stream.h"

#include <algorithm>

#include "trainer/data/data_error.h"
#include "trainer/data/dataset_manifest.h"

namespace traindeck {

TokenStream::TokenStream(const TokenSource& source, const ExpectedTokenizer& expected) {
  bool first = true;
  for (const SourceShard& entry : source.shards) {
    ShardReader reader(entry.path);
    const std::string name = entry.path.string();
    if (entry.tokens && *entry.tokens != reader.size())
      throw DataError(name + " holds " + std::to_string(reader.size()) + " tokens but " + kManifestFileName + " says " +
                      std::to_string(*entry.tokens) + "; the dataset is damaged: re-run traindeck-train prepare");
    checkTokenizer(name, reader.info(), expected);
    if (first) {
      m_info = reader.info();
      first = false;
    } else if (reader.info().tokenizer != m_info.tokenizer || reader.info().vocabSize != m_info.vocabSize ||
               reader.info().endOfText != m_info.endOfText) {
      throw DataError(name + " was prepared with the " + reader.info().tokenizer + " tokenizer (vocabulary " +
                      std::to_string(reader.info().vocabSize) + ") but " + source.shards.front().path.string() +
                      " with " + m_info.tokenizer + " (vocabulary " + std::to_string(m_info.vocabSize) +
                      "); train on shards of one tokenizer");
    }
    if (reader.size() == 0) continue;
    m_starts.push_back(m_size);
    m_size += reader.size();
    m_shards.push_back(std::move(reader));
  }
  if (m_size == 0) throw DataError(source.spec + " holds no tokens; give it data prepared by traindeck-train prepare");
}

void TokenStream::copyTo(std::uint64_t begin, std::uint64_t count, std::int64_t* out) const {
  if (begin + count > m_size || begin + count < begin)
    throw DataError("internal: a read past the end of the token stream");  // a loader bug, not bad data
  std::size_t shard =
      static_cast<std::size_t>(std::upper_bound(m_starts.begin(), m_starts.end(), begin) - m_starts.begin()) - 1;
  while (count > 0) {
    const std::uint64_t offset = begin - m_starts[shard];
    const std::uint64_t take = std::min(count, m_shards[shard].size() - offset);
    m_shards[shard].copyTo(offset, take, out);
    out += take;
    begin += take;
    count -= take;
    ++shard;
  }
}

}  // namespace traindeck
