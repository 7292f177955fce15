// Batches of training windows for one rank of a data-parallel job, read from memory-mapped
// shards. A window is T + 1 consecutive tokens (inputs are its first T, targets its last T);
// a batch is B windows, row-major (B, T + 1) int64.
//
// The data is one stream of N tokens (all shards in order). Epoch e starts at an offset in
// [0, T) drawn from (seed, e), so window boundaries move between epochs; from there the stream
// is cut into windows of stride T (neighbours share one token). Windows are dealt round-robin:
// window k goes to rank k % W, so the ranks never share a window and together read what one
// rank alone would (less the last incomplete round). Each row of a batch takes the next round;
// past the end of the stream the next epoch begins. Everything follows from (data, seed, B, T,
// rank, W) and the cursor, so a run resumed from cursor() sees exactly the batches it would have.
//
// Validation: a second loader over the val split with shiftEachEpoch off, and restart() before
// each evaluation, so every evaluation reads the same first windows. Not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "trainer/data/loader_cursor.h"
#include "trainer/data/token_source.h"
#include "trainer/data/token_stream.h"

namespace traindeck {

struct TokenLoaderOptions {
  std::int64_t batchSize = 1;          // B
  std::int64_t sequenceLength = 1024;  // T
  int rank = 0;
  int worldSize = 1;
  std::uint64_t seed = 0;
  bool shiftEachEpoch = true;  // off: every epoch starts at offset 0 (for validation)
  ExpectedTokenizer expected;  // an empty name accepts any tokenizer
};

class TokenLoader {
 public:
  // Throws DataError: bad options, shards that fail their checks, another tokenizer, or fewer
  // tokens than one round of windows (W * T + 1).
  TokenLoader(const TokenSource& source, const TokenLoaderOptions& options);

  // data.train (a prepared directory's train split, a shard or a glob), shifting each epoch.
  static TokenLoader openTrain(const std::string& spec, const TokenLoaderOptions& options);
  // Validation data, starting at offset 0 every epoch: a prepared directory's val split (the
  // default data.val is data.train's directory), or a shard file or glob named by data.val.
  static TokenLoader openValidation(const std::string& spec, TokenLoaderOptions options);

  std::size_t batchElements() const { return static_cast<std::size_t>(m_batch * (m_length + 1)); }
  // Fills `out` (batchElements() values) with the next batch, shape (B, T + 1).
  void next(std::span<std::int64_t> out);
  std::vector<std::int64_t> next();

  LoaderCursor cursor() const { return {m_epoch, m_position, static_cast<std::int64_t>(m_stream.size())}; }
  // Throws DataError when the cursor was saved over a stream of another size, or lies outside it.
  void restore(const LoaderCursor& cursor);
  void restart();  // back to the start of epoch 0

  std::uint64_t tokens() const { return m_stream.size(); }
  const ShardInfo& info() const { return m_stream.info(); }
  // Windows this rank reads in epoch `epoch` (its batches are this divided by B, rounded up).
  std::uint64_t windowsInEpoch(std::int64_t epoch) const;

 private:
  std::int64_t epochStart(std::int64_t epoch) const;
  bool roundFits(std::int64_t position) const;

  TokenStream m_stream;
  std::int64_t m_batch;
  std::int64_t m_length;
  std::int64_t m_rank;
  std::int64_t m_world;
  std::uint64_t m_seed;
  bool m_shift;
  std::int64_t m_epoch = 0;
  std::int64_t m_position = 0;
};

}  // namespace traindeck
