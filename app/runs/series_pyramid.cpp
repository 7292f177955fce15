// Buckets are built once, when the points that complete them arrive; a ragged tail is read
// from the finer levels, so appends never revisit a bucket and the levels stay exact.
#include "series_pyramid.h"

#include <cmath>

#include "runlog/huge_pages.h"

namespace traindeck {

namespace {

// Draw every point while there are at most this many per pixel column: QCustomPlot's own
// sampling handles those, and every point is exact.
constexpr std::size_t kRawPointsPerColumn = 4;

// `into` widened by point i of `y`.
void widenBucket(SeriesPyramid::Bucket& into, const std::vector<double>& y, std::uint32_t i) {
  if (!std::isfinite(y[i])) {
    into.gap = true;
    return;
  }
  if (into.lo == SeriesPyramid::kNone) {
    into.lo = into.hi = i;
    return;
  }
  if (y[i] < y[into.lo]) into.lo = i;
  if (y[i] > y[into.hi]) into.hi = i;
}

// `into` widened by a finer bucket.
void mergeBucket(SeriesPyramid::Bucket& into, const SeriesPyramid::Bucket& part, const std::vector<double>& y) {
  into.gap = into.gap || part.gap;
  if (part.lo == SeriesPyramid::kNone) return;
  if (into.lo == SeriesPyramid::kNone) {
    into.lo = part.lo;
    into.hi = part.hi;
    return;
  }
  if (y[part.lo] < y[into.lo]) into.lo = part.lo;
  if (y[part.hi] > y[into.hi]) into.hi = part.hi;
}

}  // namespace

std::size_t SeriesPyramid::bucketSpan(int l) {
  std::size_t span = 1;
  for (int i = 0; i < l; ++i) span *= kFanOut;
  return span;
}

int SeriesPyramid::levelFor(std::size_t points, std::size_t columns) {
  columns = std::max<std::size_t>(columns, 1);
  if (points <= kRawPointsPerColumn * columns) return 0;
  int l = 0;
  while (points / bucketSpan(l + 1) >= columns) ++l;
  return l;
}

void SeriesPyramid::clear() {
  m_xOwner = nullptr;
  m_x.clear();
  m_y.clear();
  m_levels.clear();
}

void SeriesPyramid::assign(std::vector<double> x, std::vector<double> y) {
  m_xOwner = nullptr;
  m_x = std::move(x);
  m_y = std::move(y);
  m_y.resize(m_x.size(), NAN);
  m_levels.clear();
  extendLevels();
}

void SeriesPyramid::assignOverXOf(const SeriesPyramid* xOwner, std::vector<double> y) {
  m_xOwner = xOwner;
  m_x.clear();
  m_y = std::move(y);
  m_levels.clear();
  extendLevels();
}

void SeriesPyramid::append(const std::vector<double>& x, const std::vector<double>& y) {
  if (m_xOwner) {  // its x were appended to the owner already
    m_y.insert(m_y.end(), y.begin(), y.begin() + static_cast<std::ptrdiff_t>(std::min(x.size(), y.size())));
    m_y.resize(m_y.size() + (x.size() - std::min(x.size(), y.size())), NAN);
    extendLevels();
    return;
  }
  m_x.insert(m_x.end(), x.begin(), x.end());
  m_y.insert(m_y.end(), y.begin(), y.begin() + static_cast<std::ptrdiff_t>(std::min(x.size(), y.size())));
  m_y.resize(m_x.size(), NAN);
  extendLevels();
}

void SeriesPyramid::extendLevels() {
  // Level 1 from the points, each level above from the one below; each gains only the buckets
  // completed since (the levels hold complete buckets only).
  for (int l = 1;; ++l) {
    const std::size_t below = l == 1 ? size() : level(l - 1).size();
    const std::size_t complete = below / kFanOut;
    if (complete == 0) break;
    if (coarseLevels() < l) m_levels.emplace_back();
    std::vector<Bucket>& buckets = m_levels[static_cast<std::size_t>(l - 1)];
    if (buckets.empty()) reserveHuge(buckets, complete);  // later, push_back's doubling (reserve would copy each time)
    for (std::size_t k = buckets.size(); k < complete; ++k) {
      Bucket b;
      if (l == 1) {
        for (std::size_t i = k * kFanOut; i < (k + 1) * kFanOut; ++i)
          widenBucket(b, m_y, static_cast<std::uint32_t>(i));
      } else {
        const std::vector<Bucket>& finer = level(l - 1);
        for (std::size_t i = k * kFanOut; i < (k + 1) * kFanOut; ++i) mergeBucket(b, finer[i], m_y);
      }
      buckets.push_back(b);
    }
  }
}

std::size_t SeriesPyramid::lowerBound(double key) const {
  const std::vector<double>& x = xs();
  return static_cast<std::size_t>(std::lower_bound(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(size()), key) -
                                  x.begin());
}

// The coarsest cover of [first, last): whole buckets where they fit, points at the ragged ends.
// A bucket's lo and hi cover its finite points whether or not it has a gap.
void SeriesPyramid::rangeInto(std::size_t first, std::size_t last, int l, Bucket& all) const {
  if (first >= last) return;
  if (l == 0) {
    for (std::size_t i = first; i < last; ++i) widenBucket(all, m_y, static_cast<std::uint32_t>(i));
    return;
  }
  const std::size_t span = bucketSpan(l);
  const std::size_t a = (first + span - 1) / span, b = std::min(last / span, level(l).size());
  if (a >= b) {
    rangeInto(first, last, l - 1, all);
    return;
  }
  rangeInto(first, a * span, l - 1, all);
  for (std::size_t k = a; k < b; ++k) mergeBucket(all, level(l)[k], m_y);
  rangeInto(b * span, last, l - 1, all);
}

std::optional<std::pair<double, double>> SeriesPyramid::valueRange(std::size_t first, std::size_t last) const {
  last = std::min(last, size());
  if (first >= last) return std::nullopt;
  Bucket all;
  rangeInto(first, last, coarseLevels(), all);
  if (all.lo == kNone) return std::nullopt;
  return std::make_pair(m_y[all.lo], m_y[all.hi]);
}

}  // namespace traindeck
