// TokenLoader: round-robin windows over one token stream, with a seeded start per epoch.
#include "trainer/data/token_loader.h"

#include <algorithm>

#include "trainer/data/data_error.h"
#include "trainer/data/split_rule.h"

namespace traindeck {
namespace {

const TokenLoaderOptions& checked(const TokenLoaderOptions& options) {
  if (options.batchSize < 1) throw DataError("the batch size must be at least 1");
  if (options.sequenceLength < 1) throw DataError("the sequence length must be at least 1");
  if (options.worldSize < 1 || options.rank < 0 || options.rank >= options.worldSize)
    throw DataError("rank " + std::to_string(options.rank) + " is outside a world of " +
                    std::to_string(options.worldSize));
  return options;
}

}  // namespace

TokenLoader::TokenLoader(const TokenSource& source, const TokenLoaderOptions& options)
    : m_stream(source, checked(options).expected),
      m_batch(options.batchSize),
      m_length(options.sequenceLength),
      m_rank(options.rank),
      m_world(options.worldSize),
      m_seed(options.seed),
      m_shift(options.shiftEachEpoch) {
  const std::uint64_t round = static_cast<std::uint64_t>(m_world * m_length);
  if (m_stream.size() < round + 1)
    throw DataError(source.spec + " holds " + std::to_string(m_stream.size()) +
                    " tokens, too few for one window per rank (world size x sequence length + 1 = " +
                    std::to_string(round + 1) + "); use more data or a shorter sequence");
  restart();
}

TokenLoader TokenLoader::openTrain(const std::string& spec, const TokenLoaderOptions& options) {
  return TokenLoader(resolveTokenSource(spec, DataSplit::Train, options.expected), options);
}

TokenLoader TokenLoader::openValidation(const std::string& spec, TokenLoaderOptions options) {
  options.shiftEachEpoch = false;
  return TokenLoader(resolveTokenSource(spec, DataSplit::Val, options.expected), options);
}

std::int64_t TokenLoader::epochStart(std::int64_t epoch) const {
  if (!m_shift) return 0;
  // Any start up to `slack` still leaves room for one round; stay below T so that epochs differ
  // only in where windows are cut, not in how much data they skip.
  const std::uint64_t slack = m_stream.size() - static_cast<std::uint64_t>(m_world * m_length) - 1;
  const std::uint64_t choices = std::min<std::uint64_t>(static_cast<std::uint64_t>(m_length), slack + 1);
  return static_cast<std::int64_t>(mix64(m_seed ^ mix64(static_cast<std::uint64_t>(epoch))) % choices);
}

bool TokenLoader::roundFits(std::int64_t position) const {
  return static_cast<std::uint64_t>(position + m_world * m_length + 1) <= m_stream.size();
}

std::uint64_t TokenLoader::windowsInEpoch(std::int64_t epoch) const {
  const std::uint64_t usable = m_stream.size() - 1 - static_cast<std::uint64_t>(epochStart(epoch));
  return usable / static_cast<std::uint64_t>(m_world * m_length);
}

void TokenLoader::next(std::span<std::int64_t> out) {
  if (out.size() != batchElements())
    throw DataError("a batch buffer of " + std::to_string(out.size()) + " values, expected " +
                    std::to_string(batchElements()) + " (batch size x (sequence length + 1))");
  const std::uint64_t row = static_cast<std::uint64_t>(m_length + 1);
  for (std::int64_t b = 0; b < m_batch; ++b) {
    if (!roundFits(m_position)) {
      ++m_epoch;
      m_position = epochStart(m_epoch);
    }
    const std::uint64_t window = static_cast<std::uint64_t>(m_position + m_rank * m_length);
    m_stream.copyTo(window, row, out.data() + b * row);  // row b: (T + 1)
    m_position += m_world * m_length;
  }
}

std::vector<std::int64_t> TokenLoader::next() {
  std::vector<std::int64_t> batch(batchElements());  // (B, T + 1)
  next(batch);
  return batch;
}

void TokenLoader::restore(const LoaderCursor& cursor) {
  if (static_cast<std::uint64_t>(cursor.tokens) != m_stream.size())
    throw DataError("the saved data cursor is for " + std::to_string(cursor.tokens) + " tokens of data, but " +
                    "the data now holds " + std::to_string(m_stream.size()) +
                    "; the data changed since the checkpoint, so it cannot continue exactly where it stopped");
  if (cursor.epoch < 0 || cursor.position < 0 || static_cast<std::uint64_t>(cursor.position) > m_stream.size())
    throw DataError("the saved data cursor (epoch " + std::to_string(cursor.epoch) + ", position " +
                    std::to_string(cursor.position) + ") lies outside the data");
  m_epoch = cursor.epoch;
  m_position = cursor.position;
}

void TokenLoader::restart() {
  m_epoch = 0;
  m_position = epochStart(0);
}

}  // namespace traindeck
