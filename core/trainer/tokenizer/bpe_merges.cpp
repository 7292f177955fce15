// BpeMerges::apply works in rounds, one per rank: all candidate pairs of the lowest rank are
// taken from the heap in position order and merged unless an earlier merge of the round used a
// symbol of theirs; only then are the pairs the new symbols form pushed. That is the
// reference's "merge every occurrence left to right, then look again", step for step.
#include "trainer/tokenizer/bpe_merges.h"

#include <algorithm>
#include <limits>

namespace traindeck {
namespace {

constexpr std::uint32_t kGone = std::numeric_limits<std::uint32_t>::max();  // a symbol merged away
constexpr std::uint32_t kKeptWorkspace = 1 << 16;                           // symbols

using Candidate = BpeMerges::Workspace::Candidate;

// std::push_heap keeps the largest on top; this makes it the lowest rank, then leftmost.
bool laterThan(const Candidate& a, const Candidate& b) {
  return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
}

}  // namespace

bool BpeMerges::add(std::uint32_t left, std::uint32_t right, std::uint32_t merged) {
  const std::uint64_t pair = std::uint64_t{left} << 32 | right;
  if (pair == kEmpty) return false;  // ids are far below 2^32 - 1; never a real pair
  if ((m_count + 1) * 2 > m_slots.size()) grow();
  Slot& slot = m_slots[slotOf(pair)];
  if (slot.pair == pair) return false;
  slot = {pair, {static_cast<std::uint32_t>(m_count++), merged}};
  return true;
}

std::size_t BpeMerges::slotOf(std::uint64_t pair) const {
  const std::size_t mask = m_slots.size() - 1;
  std::size_t i = (pair * 0x9E3779B97F4A7C15ull) >> 32 & mask;  // Fibonacci hashing
  while (m_slots[i].pair != kEmpty && m_slots[i].pair != pair) i = (i + 1) & mask;
  return i;
}

void BpeMerges::grow() {
  std::vector<Slot> old = std::move(m_slots);
  m_slots.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  for (const Slot& slot : old)
    if (slot.pair != kEmpty) m_slots[slotOf(slot.pair)] = slot;
}

const BpeMerges::Merge* BpeMerges::find(std::uint32_t left, std::uint32_t right) const {
  if (m_slots.empty()) return nullptr;
  const Slot& slot = m_slots[slotOf(std::uint64_t{left} << 32 | right)];
  return slot.pair == kEmpty ? nullptr : &slot.merge;
}

std::optional<std::uint32_t> BpeMerges::rankOf(std::uint32_t left, std::uint32_t right) const {
  const Merge* merge = find(left, right);
  return merge ? std::optional(merge->rank) : std::nullopt;
}

void BpeMerges::apply(std::vector<std::uint32_t>& symbols, Workspace& workspace) const {
  const auto n = static_cast<std::uint32_t>(symbols.size());
  if (n < 2) return;
  // A linked list over positions: a merge keeps the left position and unlinks the right one.
  std::vector<std::uint32_t>& prev = workspace.prev;
  std::vector<std::uint32_t>& next = workspace.next;
  prev.resize(n);
  next.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    prev[i] = i == 0 ? kGone : i - 1;
    next[i] = i + 1 == n ? kGone : i + 1;
  }
  std::vector<Candidate>& heap = workspace.heap;
  heap.clear();
  const auto push = [&](std::uint32_t left, std::uint32_t right) {
    if (const Merge* m = find(symbols[left], symbols[right])) {
      heap.push_back({m->rank, left, right, symbols[left], symbols[right], m->merged});
      std::push_heap(heap.begin(), heap.end(), laterThan);
    }
  };
  for (std::uint32_t i = 0; i + 1 < n; ++i) push(i, i + 1);

  std::vector<std::uint32_t>& mergedThisRound = workspace.mergedThisRound;
  while (!heap.empty()) {
    const std::uint32_t rank = heap.front().rank;
    mergedThisRound.clear();
    while (!heap.empty() && heap.front().rank == rank) {
      std::pop_heap(heap.begin(), heap.end(), laterThan);
      const Candidate c = heap.back();
      heap.pop_back();
      const bool unchanged = symbols[c.left] == c.leftId && next[c.left] == c.right && symbols[c.right] == c.rightId;
      if (!unchanged) continue;
      symbols[c.left] = c.merged;
      symbols[c.right] = kGone;
      next[c.left] = next[c.right];
      if (next[c.right] != kGone) prev[next[c.right]] = c.left;
      mergedThisRound.push_back(c.left);
    }
    for (const std::uint32_t p : mergedThisRound) {
      if (prev[p] != kGone) push(prev[p], p);
      if (next[p] != kGone) push(p, next[p]);
    }
  }
  symbols.erase(std::remove(symbols.begin(), symbols.end(), kGone), symbols.end());
  if (n > kKeptWorkspace) workspace = Workspace{};  // one huge piece should not pin its memory
}

}  // namespace traindeck
