// The framing of W&B's .wandb files (wandb/sdk/internal/datastore.py, core/pkg/leveldb): a 7-byte
// header (":W&B", uint16 0xBEE1, a version byte), then LevelDB's log format: 32 KiB blocks of
// chunks, each a 7-byte header (CRC-32, uint16 length, type FULL/FIRST/MIDDLE/LAST) and its
// data; a block's last 1..6 bytes are zero padding. Unlike LevelDB, W&B's CRC is zlib's CRC-32
// (IEEE, not masked) over the type byte and the data.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "imports/tfrecord.h"

namespace traindeck {

inline constexpr std::size_t kLevelDbBlockBytes = 32768;
inline constexpr std::size_t kLevelDbChunkHeaderBytes = 7;
inline constexpr std::size_t kWandbHeaderBytes = 7;
enum LevelDbChunkType : unsigned char { kChunkFull = 1, kChunkFirst = 2, kChunkMiddle = 3, kChunkLast = 4 };

// Checks the W&B header, then hands each whole record (its chunks joined) and the byte of its
// first chunk to `onRecord`, stopping at the first damage. `consumed` is the end of the last whole
// record; a record whose chunks run past the end is a writer still at work (`partialTail`).
FramedScan scanWandbLog(std::string_view bytes, const std::function<void(std::string_view, std::size_t)>& onRecord);

}  // namespace traindeck
