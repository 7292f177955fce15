// Several shards read as one stream of tokens, in order: the source of a TokenLoader. Opens and
// checks every shard up front (see ShardReader), and that all of them come from one tokenizer,
// the expected one. Read-only after construction.
#pragma once

#include <cstdint>
#include <vector>

#include "trainer/data/shard_reader.h"
#include "trainer/data/token_source.h"

namespace traindeck {

class TokenStream {
 public:
  // Throws DataError: a shard fails its checks, shards disagree, or the tokenizer is not `expected`.
  TokenStream(const TokenSource& source, const ExpectedTokenizer& expected);

  std::uint64_t size() const { return m_size; }
  const ShardInfo& info() const { return m_info; }
  // Copies tokens [begin, begin + count) of the stream, across shard boundaries, widened to int64.
  void copyTo(std::uint64_t begin, std::uint64_t count, std::int64_t* out) const;

 private:
  std::vector<ShardReader> m_shards;    // the non-empty ones
  std::vector<std::uint64_t> m_starts;  // stream offset of each shard's first token
  std::uint64_t m_size = 0;
  ShardInfo m_info;
};

}  // namespace traindeck
