// The training sessions in one TensorBoard folder. Each process that writes to a log dir starts
// a new events.out.tfevents.<unix time>.<host>... file, so a folder used by several trainings (a
// script run twice, Keras' fit() called again) holds one file per session and per writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace traindeck {

struct TensorBoardFile {
  std::filesystem::path path;
  std::string tagPrefix;  // "" in the folder itself, "train/" or "validation/" in Keras' subfolders
};

struct TensorBoardSession {
  std::string key;              // the first file's path below the folder ("train/events.out.tfevents.…")
  std::uint64_t startTime = 0;  // the unix seconds in its first file's name; 0 where it has none
  std::vector<TensorBoardFile> files;
  std::vector<std::filesystem::path> lfsPointers;  // event files of this session not pulled by Git LFS
};

// The folder's event files by session: one session per file of the folder, or of train/ where
// Keras writes; each validation/ file (and a file of the folder beside train/, such as the
// HParams plugin's) joins the session that started nearest its time. A Git LFS pointer in place
// of an event file starts no session: it joins the nearest one, to be said by that run alone.
std::vector<TensorBoardSession> tensorBoardSessions(const std::filesystem::path& folder);

}  // namespace traindeck
