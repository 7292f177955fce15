// sweep.json on disk (schema 1, docs/sweeps.md). Writing replaces the file atomically and
// first keeps the version it replaces, when that one reads, as sweep.json.previous; reading
// a file that is corrupt or half-written by something else says so and where, and changes
// nothing on disk, so the last good state is never lost.
#pragma once

#include <string>
#include <string_view>

#include "sweep_state.h"

namespace traindeck {

struct SweepStateRead {
  SweepState state;
  bool missing = false;  // no file yet: a new sweep, with an empty state
  std::string error;     // empty when the state was read; else what is wrong and where
  bool ok() const { return error.empty(); }
};

std::string sweepStateJson(const SweepState& state);
SweepStateRead parseSweepState(std::string_view json);

// A missing file is no error (missing is set); an unreadable one is.
SweepStateRead readSweepState(const std::string& path);
// Empty on success, else the reason; the file at `path` is then as it was.
std::string writeSweepState(const SweepState& state, const std::string& path);

// A sweep folder's state: <sweep folder>/sweep.json. A folder is a sweep's when it holds one.
inline constexpr const char* kSweepStateFile = "sweep.json";
bool isSweepFolder(const std::string& dir);

// Where writeSweepState keeps the version it replaced.
std::string previousSweepStatePath(const std::string& path);

}  // namespace traindeck
