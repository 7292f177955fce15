// BpeMerges against a direct transcription of the reference's loop (find the lowest-ranked
// pair, merge all its occurrences left to right, repeat), on random merge tables, including
// tables whose ranks are out of the order in which their symbols can form.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "trainer/tokenizer/bpe_merges.h"

namespace traindeck {
namespace {

using Ids = std::vector<std::uint32_t>;
using Table =
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint32_t, std::uint32_t>>;  // -> rank, merged

Ids referenceMerge(Ids word, const Table& table) {
  for (;;) {
    const std::pair<std::uint32_t, std::uint32_t>* best = nullptr;
    std::uint32_t bestRank = 0;
    for (std::size_t i = 0; i + 1 < word.size(); ++i) {
      const auto it = table.find({word[i], word[i + 1]});
      if (it != table.end() && (!best || it->second.first < bestRank)) {
        best = &it->first;
        bestRank = it->second.first;
      }
    }
    if (!best) return word;
    const auto [first, second] = *best;
    const std::uint32_t merged = table.at(*best).second;
    Ids next;
    for (std::size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == first && word[i + 1] == second) {
        next.push_back(merged);
        i += 2;
      } else {
        next.push_back(word[i++]);
      }
    }
    word = next;
  }
}

TEST(BpeMerges, KnownExample) {
  // a=0 b=1; ab=2 (rank 0), aa=3 (rank 1), ab ab=4 (rank 2).
  BpeMerges merges;
  ASSERT_TRUE(merges.add(0, 1, 2));
  ASSERT_TRUE(merges.add(0, 0, 3));
  ASSERT_TRUE(merges.add(2, 2, 4));
  EXPECT_FALSE(merges.add(0, 1, 9));  // a pair has one rank
  Ids word{0, 0, 0, 1, 0, 1, 0, 0, 0};
  merges.apply(word);
  EXPECT_EQ(word, (Ids{3, 4, 3, 0}));  // a a [ab ab] a a a -> aa (abab) aa a
}

TEST(BpeMerges, MatchesTheReferenceLoopOnRandomTables) {
  std::mt19937 random(5);
  for (int table = 0; table < 200; ++table) {
    const std::uint32_t alphabet = 2 + random() % 3;
    const std::uint32_t mergeCount = random() % 12;
    BpeMerges merges;
    Table reference;
    std::uint32_t nextId = alphabet;
    for (std::uint32_t rank = 0; rank < mergeCount; ++rank) {
      // Parts may be symbols that only later merges make: ranks out of formation order.
      const std::uint32_t limit = alphabet + mergeCount;
      const std::uint32_t left = random() % limit, right = random() % limit;
      if (reference.count({left, right})) continue;
      const std::uint32_t merged = nextId++;
      reference[{left, right}] = {static_cast<std::uint32_t>(merges.size()), merged};
      ASSERT_TRUE(merges.add(left, right, merged));
    }
    BpeMerges::Workspace workspace;  // reused, as Gpt2Tokenizer does
    for (int word = 0; word < 50; ++word) {
      Ids ids(random() % 24);
      for (auto& id : ids) id = random() % alphabet;
      Ids ours = ids;
      merges.apply(ours, workspace);
      ASSERT_EQ(ours, referenceMerge(ids, reference)) << "table " << table << " word " << word;
    }
  }
}

TEST(BpeMerges, LongRunsStayFast) {
  BpeMerges merges;
  merges.add(0, 0, 1);
  merges.add(1, 1, 2);
  Ids word(1 << 20, 0);  // a million-byte "word" must not take a million passes
  merges.apply(word);
  EXPECT_EQ(word, Ids(1 << 18, 2));
}

}  // namespace
}  // namespace traindeck
