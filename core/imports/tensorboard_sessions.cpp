// Sessions are told apart by their files' names: a writer's file name carries the time it was
// opened, in seconds. Of each file only its first bytes are read, to leave Git LFS pointers out;
// its events are read later, by the reader of the run.
#include "imports/tensorboard_sessions.h"

#include <charconv>

#include "imports/import_files.h"
#include "imports/not_read.h"
#include "imports/tensorboard_reader.h"

namespace traindeck {

namespace {

// Unsigned, so that a name such as "events.out.tfevents.-9223372036854775808.h" has no time (0)
// and no difference of two times can overflow.
std::uint64_t fileStartTime(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  constexpr std::string_view kPrefix = "events.out.tfevents.";
  std::uint64_t seconds = 0;
  if (name.size() > kPrefix.size() &&
      std::from_chars(name.data() + kPrefix.size(), name.data() + name.size(), seconds).ec != std::errc())
    seconds = 0;
  return seconds;
}

std::uint64_t secondsApart(std::uint64_t a, std::uint64_t b) {
  return a > b ? a - b : b - a;
}

// The event files of `folder`; Git LFS pointers among them go to `pointers`.
std::vector<TensorBoardFile> eventFiles(const std::filesystem::path& folder, const std::string& prefix,
                                        std::vector<std::filesystem::path>& pointers) {
  std::vector<TensorBoardFile> files;
  for (const auto& entry : sortedEntries(folder)) {
    if (!isTfEventsFileName(entry.filename().string()) || !isRegularFile(entry)) continue;
    if (isGitLfsPointerFile(entry))
      pointers.push_back(entry);
    else
      files.push_back(TensorBoardFile{.path = entry, .tagPrefix = prefix});
  }
  return files;
}

std::size_t nearestSession(const std::vector<TensorBoardSession>& sessions, const std::filesystem::path& file) {
  const std::uint64_t time = fileStartTime(file);
  std::size_t nearest = 0;
  for (std::size_t i = 1; i < sessions.size(); ++i)
    if (secondsApart(sessions[i].startTime, time) < secondsApart(sessions[nearest].startTime, time)) nearest = i;
  return nearest;
}

}  // namespace

std::vector<TensorBoardSession> tensorBoardSessions(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> pointers;
  std::vector<TensorBoardFile> top = eventFiles(folder, {}, pointers);
  std::vector<TensorBoardFile> train = eventFiles(folder / "train", "train/", pointers);
  std::vector<TensorBoardFile> others = eventFiles(folder / "validation", "validation/", pointers);
  std::vector<TensorBoardFile>& firsts = train.empty() ? top : train;
  if (!train.empty()) others.insert(others.begin(), top.begin(), top.end());
  if (firsts.empty()) std::swap(firsts, others);  // validation/ alone

  std::vector<TensorBoardSession> sessions;
  for (TensorBoardFile& file : firsts)
    sessions.push_back(TensorBoardSession{.key = file.path.lexically_relative(folder).generic_string(),
                                          .startTime = fileStartTime(file.path),
                                          .files = {std::move(file)},
                                          .lfsPointers = {}});
  if (sessions.empty()) return sessions;
  for (TensorBoardFile& file : others) sessions[nearestSession(sessions, file.path)].files.push_back(std::move(file));
  for (std::filesystem::path& pointer : pointers)
    sessions[nearestSession(sessions, pointer)].lfsPointers.push_back(std::move(pointer));
  return sessions;
}

}  // namespace traindeck
