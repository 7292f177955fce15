// Remembers the ids of pieces already run through BPE: most words of a text repeat, and one
// lookup is far cheaper than merging. An open-addressing table over flat arrays of keys and ids,
// so a lookup follows no pointers. Bounded: it starts over when it holds kMaxEntries pieces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

class BpeCache {
 public:
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 18;
  static constexpr std::size_t kMaxPieceBytes = 256;  // longer pieces rarely repeat

  // The ids stored for `piece`; valid until the next insert().
  std::optional<std::span<const std::uint32_t>> find(std::string_view piece) const;
  // For a piece that find() just missed (a second insert of a piece would only waste room).
  void insert(std::string_view piece, std::span<const std::uint32_t> ids);
  std::size_t size() const { return m_count; }

 private:
  struct Slot {
    std::uint64_t hash = 0;  // 0: empty
    std::uint32_t keyOffset = 0, keyLength = 0;
    std::uint32_t idOffset = 0, idCount = 0;
  };
  static std::uint64_t hashOf(std::string_view piece);
  void grow();

  std::vector<Slot> m_slots;  // a power of two in size, at most half full
  std::string m_keys;         // every entry's piece, back to back
  std::vector<std::uint32_t> m_ids;
  std::size_t m_count = 0;
};

}  // namespace traindeck
