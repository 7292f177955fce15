// Trainers built on remote hosts, kept on this computer so that the next host of the same kind
// (every fresh runtime of one Colab image, a second VM from one image) gets the binary uploaded
// instead of building it again. A build is keyed by what it depends on: the trainer's sources
// hash, the CPU architecture, OS and glibc, which LibTorch it linked (Python's torch: version,
// CUDA version and where it lives, since the binary finds its libraries there; or the system's)
// and the GPU architecture. The upload is checked there (`--version` must run) before it is
// used; a host where it does not run builds as before. Folder: <dir>/<key>/traindeck-train with
// signature.txt beside it. Plain Qt Core file I/O.
#pragma once

#include <QString>

#include "host_probe.h"

namespace traindeck {

struct TrainerSignature {
  QString key;          // 24 hex digits of the SHA-256 of `description`
  QString description;  // one "name=value" line per thing the build depends on
};

TrainerSignature trainerSignature(const HostProbe& probe, const QString& sourcesHash);

class TrainerCache {
 public:
  // `dir` empty: $XDG_CACHE_HOME/traindeck/trainers (default ~/.cache/traindeck/trainers).
  explicit TrainerCache(const QString& dir = {});
  static QString defaultDir();

  QString dir() const { return m_dir; }
  // The kept binary for this signature, or empty.
  QString binaryFor(const TrainerSignature& signature) const;
  // Where a download for it goes first (its folder made), one per `tag` (the run that brings it:
  // two runs at once do not write one file); keep() moves it into place.
  QString partialFor(const TrainerSignature& signature, const QString& tag) const;
  // Empty, or why the downloaded binary could not be kept.
  QString keep(const TrainerSignature& signature, const QString& tag) const;

 private:
  QString m_dir;
};

}  // namespace traindeck
