// BpeCache: what goes in comes out, pieces too long are not kept, and a full cache starts over.
#include <gtest/gtest.h>

#include "trainer/tokenizer/bpe_cache.h"

namespace traindeck {
namespace {

using Ids = std::vector<std::uint32_t>;

Ids found(const BpeCache& cache, std::string_view piece) {
  const auto ids = cache.find(piece);
  return ids ? Ids(ids->begin(), ids->end()) : Ids{999999};
}

TEST(BpeCache, FindsWhatWasInserted) {
  BpeCache cache;
  EXPECT_FALSE(cache.find("hello"));
  cache.insert("hello", Ids{31373});
  cache.insert(" world", Ids{995});
  cache.insert(std::string_view("\0\0", 2), Ids{0, 0});
  cache.insert("", Ids{});
  EXPECT_EQ(found(cache, "hello"), Ids{31373});
  EXPECT_EQ(found(cache, " world"), Ids{995});
  EXPECT_EQ(found(cache, std::string_view("\0\0", 2)), (Ids{0, 0}));
  EXPECT_EQ(found(cache, ""), Ids{});
  EXPECT_FALSE(cache.find("hell"));
  EXPECT_FALSE(cache.find(std::string_view("\0", 1)));
  cache.insert(std::string(BpeCache::kMaxPieceBytes + 1, 'a'), Ids{1});
  EXPECT_FALSE(cache.find(std::string(BpeCache::kMaxPieceBytes + 1, 'a')));
}

TEST(BpeCache, GrowsAndStartsOverWhenFull) {
  BpeCache cache;
  for (std::uint32_t i = 0; i < BpeCache::kMaxEntries; ++i) cache.insert(std::to_string(i), Ids{i, i + 1});
  EXPECT_EQ(cache.size(), BpeCache::kMaxEntries);
  EXPECT_EQ(found(cache, "0"), (Ids{0, 1}));
  EXPECT_EQ(found(cache, "123456"), (Ids{123456, 123457}));
  cache.insert("one more", Ids{7});
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_FALSE(cache.find("0"));
  EXPECT_EQ(found(cache, "one more"), Ids{7});
}

}  // namespace
}  // namespace traindeck
