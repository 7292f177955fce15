// BpeCache: linear probing from the hash; the full 64-bit hash is kept in the slot so that a
// probe compares key bytes only when the hashes agree, and growing never rereads the keys.
#include "trainer/tokenizer/bpe_cache.h"

#include <functional>

namespace traindeck {

std::uint64_t BpeCache::hashOf(std::string_view piece) {
  return std::hash<std::string_view>{}(piece) | 1;  // never 0, the empty mark
}

std::optional<std::span<const std::uint32_t>> BpeCache::find(std::string_view piece) const {
  if (m_slots.empty()) return std::nullopt;
  const std::uint64_t hash = hashOf(piece);
  const std::size_t mask = m_slots.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = m_slots[i];
    if (slot.hash == 0) return std::nullopt;
    if (slot.hash == hash && std::string_view(m_keys).substr(slot.keyOffset, slot.keyLength) == piece)
      return std::span<const std::uint32_t>(m_ids.data() + slot.idOffset, slot.idCount);
  }
}

void BpeCache::insert(std::string_view piece, std::span<const std::uint32_t> ids) {
  if (piece.size() > kMaxPieceBytes) return;
  if (m_count >= kMaxEntries) {
    m_slots.clear();
    m_keys.clear();
    m_ids.clear();
    m_count = 0;
  }
  if ((m_count + 1) * 2 > m_slots.size()) grow();
  const std::uint64_t hash = hashOf(piece);
  const std::size_t mask = m_slots.size() - 1;
  std::size_t i = hash & mask;
  while (m_slots[i].hash != 0) i = (i + 1) & mask;
  m_slots[i] = {hash, static_cast<std::uint32_t>(m_keys.size()), static_cast<std::uint32_t>(piece.size()),
                static_cast<std::uint32_t>(m_ids.size()), static_cast<std::uint32_t>(ids.size())};
  m_keys += piece;
  m_ids.insert(m_ids.end(), ids.begin(), ids.end());
  ++m_count;
}

void BpeCache::grow() {
  std::vector<Slot> old = std::move(m_slots);
  m_slots.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const std::size_t mask = m_slots.size() - 1;
  for (const Slot& slot : old) {
    if (slot.hash == 0) continue;
    std::size_t i = slot.hash & mask;
    while (m_slots[i].hash != 0) i = (i + 1) & mask;
    m_slots[i] = slot;
  }
}

}  // namespace traindeck
