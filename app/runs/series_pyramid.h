// One chart line's points (x ascending) with a min/max pyramid over them, so that a chart draws
// a million points from what its pixel columns need: the extremes of each bucket of points, in
// order, from the level whose buckets are about a pixel wide. Plain C++, owned by one thread.
// Level 0 is the data itself; level l holds one bucket per kFanOut^l points, complete buckets only.
// Buckets name points by 32-bit index: up to 4 billion points a line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace traindeck {

class SeriesPyramid {
 public:
  static constexpr std::size_t kFanOut = 4;
  static constexpr std::uint32_t kNone = 0xffffffffu;

  // Indices into the data of a bucket's smallest and largest finite y (kNone when it has no
  // finite y); `gap` when some y in it is not finite (the line breaks there).
  struct Bucket {
    std::uint32_t lo = kNone, hi = kNone;
    bool gap = false;
  };

  void clear();
  // Replaces the data (x ascending, as long as y) and builds every level. Vectors with room to
  // spare (capacity) let a live run's appends go on without copying a million points.
  void assign(std::vector<double> x, std::vector<double> y);
  // More points after the last (x ascending); the levels gain the buckets they complete.
  void append(const std::vector<double>& x, const std::vector<double>& y);
  // Replaces the data with `y` over the x of `xOwner` (a smoothed line over its raw line's x: a
  // million x not held twice). Reads nothing of xOwner here, so it may be assigned meanwhile on
  // another thread; it must outlive this pyramid's use and gain its x first: append() then adds
  // only y.
  void assignOverXOf(const SeriesPyramid* xOwner, std::vector<double> y);

  std::size_t size() const { return m_y.size(); }
  const std::vector<double>& xs() const { return m_xOwner ? m_xOwner->m_x : m_x; }
  const std::vector<double>& ys() const { return m_y; }
  // The first index whose x is >= key (size() when none).
  std::size_t lowerBound(double key) const;

  // Levels above the data (level 1..coarseLevels()); a level's buckets.
  int coarseLevels() const { return static_cast<int>(m_levels.size()); }
  const std::vector<Bucket>& level(int l) const { return m_levels[static_cast<std::size_t>(l - 1)]; }

  // The smallest and largest finite y of points [first, last), exact; nullopt when none.
  std::optional<std::pair<double, double>> valueRange(std::size_t first, std::size_t last) const;
  // The level a chart `columns` pixels wide draws `points` points from: the coarsest whose
  // buckets still number at least `columns`; 0 (every point) when they are few.
  static int levelFor(std::size_t points, std::size_t columns);
  // Calls onPoint(index) in ascending order for the points to draw of [first, last) on `columns`
  // pixel columns: every point at level 0, else each bucket's extremes (a bucket with a gap is
  // opened down to the points that break the line; one without a finite y yields its first).
  template <class OnPoint>
  void forEachDrawn(std::size_t first, std::size_t last, std::size_t columns, OnPoint&& onPoint) const;

 private:
  static std::size_t bucketSpan(int l);  // points per bucket at level l
  void extendLevels();
  void rangeInto(std::size_t first, std::size_t last, int l, Bucket& all) const;
  template <class OnPoint>
  void cover(std::size_t first, std::size_t last, int l, OnPoint& onPoint) const;
  template <class OnPoint>
  void emitBucket(int l, std::size_t k, OnPoint& onPoint) const;

  std::vector<double> m_x, m_y;  // m_x empty when the x are m_xOwner's
  const SeriesPyramid* m_xOwner = nullptr;
  std::vector<std::vector<Bucket>> m_levels;  // m_levels[l - 1] is level l
};

template <class OnPoint>
void SeriesPyramid::forEachDrawn(std::size_t first, std::size_t last, std::size_t columns, OnPoint&& onPoint) const {
  if (last > size()) last = size();
  if (first >= last) return;
  const int l = std::min(levelFor(last - first, columns), coarseLevels());
  cover(first, last, l, onPoint);
}

// Whole buckets of level l where they fit, finer levels for the ragged ends.
template <class OnPoint>
void SeriesPyramid::cover(std::size_t first, std::size_t last, int l, OnPoint& onPoint) const {
  if (first >= last) return;
  if (l == 0) {
    for (std::size_t i = first; i < last; ++i) onPoint(i);
    return;
  }
  const std::size_t span = bucketSpan(l);
  const std::size_t a = (first + span - 1) / span, b = std::min(last / span, level(l).size());
  if (a >= b) {
    cover(first, last, l - 1, onPoint);
    return;
  }
  cover(first, a * span, l - 1, onPoint);
  for (std::size_t k = a; k < b; ++k) emitBucket(l, k, onPoint);
  cover(b * span, last, l - 1, onPoint);
}

template <class OnPoint>
void SeriesPyramid::emitBucket(int l, std::size_t k, OnPoint& onPoint) const {
  const Bucket& bucket = level(l)[k];
  if (bucket.lo == kNone) {
    onPoint(k * bucketSpan(l));  // nothing finite: one point that breaks the line
  } else if (bucket.gap) {
    cover(k * bucketSpan(l), (k + 1) * bucketSpan(l), l - 1, onPoint);
  } else if (bucket.lo == bucket.hi) {
    onPoint(bucket.lo);
  } else {
    onPoint(std::min(bucket.lo, bucket.hi));
    onPoint(std::max(bucket.lo, bucket.hi));
  }
}

}  // namespace traindeck
