// GPT-2's merge rule over token ids: take the adjacent pair with the lowest rank, merge every
// occurrence of it from left to right, and repeat until no adjacent pair has a rank. A heap
// keeps long pieces (a run of 10,000 spaces, a paragraph of Chinese) at O(n log n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace traindeck {

class BpeMerges {
 public:
  // Adds `left right -> merged` with the next rank (0 for the first). Returns false, adding
  // nothing, when the pair already has a rank.
  bool add(std::uint32_t left, std::uint32_t right, std::uint32_t merged);
  std::size_t size() const { return m_count; }
  std::optional<std::uint32_t> rankOf(std::uint32_t left, std::uint32_t right) const;

  // Scratch memory for apply(), kept between calls so that merging allocates nothing once
  // warm. Its owner (one per thread) passes it in; apply() leaves nothing in it worth keeping.
  struct Workspace {
    struct Candidate {
      std::uint32_t rank;
      std::uint32_t left, right;      // positions
      std::uint32_t leftId, rightId;  // the pair as it was when pushed
      std::uint32_t merged;
    };
    std::vector<std::uint32_t> prev, next;  // a linked list over positions
    std::vector<Candidate> heap;
    std::vector<std::uint32_t> mergedThisRound;
  };

  // Merges `symbols` (ids, one per byte to start with) in place.
  void apply(std::vector<std::uint32_t>& symbols, Workspace& workspace) const;
  void apply(std::vector<std::uint32_t>& symbols) const {
    Workspace workspace;
    apply(symbols, workspace);
  }

 private:
  struct Merge {
    std::uint32_t rank;
    std::uint32_t merged;
  };
  // An open-addressing table: this lookup is most of the time spent on words not yet cached.
  struct Slot {
    std::uint64_t pair = kEmpty;  // left << 32 | right
    Merge merge{};
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  const Merge* find(std::uint32_t left, std::uint32_t right) const;
  std::size_t slotOf(std::uint64_t pair) const;  // its slot, or the empty slot where it would go
  void grow();

  std::vector<Slot> m_slots;  // a power of two in size, at most half full
  std::size_t m_count = 0;
};

}  // namespace traindeck
