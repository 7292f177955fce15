// SeriesPyramid against brute force on random series with gaps: every bucket's extremes, any
// range's extremes, the same levels however the points are appended, and drawn points that
// hold every range's extremes, never join across a gap, and are every point when zoomed in.
#include <QRandomGenerator>
#include <QTest>
#include <cmath>
#include <limits>
#include <vector>

#include "series_pyramid.h"

using namespace traindeck;

namespace {

struct Series {
  std::vector<double> x, y;
};

// x ascending with repeats; y a random walk with spikes, NaN runs and infinities.
Series randomSeries(QRandomGenerator& random, std::size_t n) {
  Series s;
  double x = 0, y = 1;
  for (std::size_t i = 0; i < n; ++i) {
    x += random.bounded(3);
    y += random.generateDouble() - 0.5;
    const int roll = random.bounded(1000);
    double v = y;
    if (roll < 20) v = std::nan("");
    if (roll == 20) v = std::numeric_limits<double>::infinity();
    if (roll == 21) v = y + 100;  // a spike
    s.x.push_back(x);
    s.y.push_back(v);
  }
  // A long run without any finite value, whole buckets of it.
  for (std::size_t i = n / 3; i < n / 3 + 300 && i < n; ++i) s.y[i] = std::nan("");
  return s;
}

std::optional<std::pair<double, double>> bruteRange(const std::vector<double>& y, std::size_t first, std::size_t last) {
  std::optional<std::pair<double, double>> out;
  for (std::size_t i = first; i < last; ++i) {
    if (!std::isfinite(y[i])) continue;
    if (!out) out = std::make_pair(y[i], y[i]);
    out->first = std::min(out->first, y[i]);
    out->second = std::max(out->second, y[i]);
  }
  return out;
}

std::size_t span(int l) {
  std::size_t s = 1;
  for (int i = 0; i < l; ++i) s *= SeriesPyramid::kFanOut;
  return s;
}

}  // namespace

class SeriesPyramidTest : public QObject {
  Q_OBJECT
 private slots:
  void bucketsHoldTheirExtremes() {
    QRandomGenerator random(28);
    const Series s = randomSeries(random, 10007);
    SeriesPyramid p;
    p.assign(s.x, s.y);
    QCOMPARE(p.size(), s.x.size());
    QVERIFY(p.coarseLevels() >= 5);
    for (int l = 1; l <= p.coarseLevels(); ++l) {
      QCOMPARE(p.level(l).size(), s.x.size() / span(l));  // complete buckets only
      for (std::size_t k = 0; k < p.level(l).size(); ++k) {
        const std::size_t first = k * span(l), last = first + span(l);
        const SeriesPyramid::Bucket& b = p.level(l)[k];
        const auto brute = bruteRange(s.y, first, last);
        bool gap = false;
        for (std::size_t i = first; i < last; ++i) gap = gap || !std::isfinite(s.y[i]);
        QCOMPARE(b.gap, gap);
        if (!brute) {
          QCOMPARE(b.lo, SeriesPyramid::kNone);
          continue;
        }
        QVERIFY(b.lo >= first && b.lo < last && b.hi >= first && b.hi < last);
        QCOMPARE(s.y[b.lo], brute->first);
        QCOMPARE(s.y[b.hi], brute->second);
      }
    }
  }

  void appendsKeepItExact() {
    QRandomGenerator random(29);
    const Series s = randomSeries(random, 5000);
    SeriesPyramid whole, grown;
    whole.assign(s.x, s.y);
    for (std::size_t pos = 0; pos < s.x.size();) {
      const std::size_t n = std::min<std::size_t>(1 + random.bounded(300), s.x.size() - pos);
      grown.append(std::vector<double>(s.x.begin() + static_cast<std::ptrdiff_t>(pos),
                                       s.x.begin() + static_cast<std::ptrdiff_t>(pos + n)),
                   std::vector<double>(s.y.begin() + static_cast<std::ptrdiff_t>(pos),
                                       s.y.begin() + static_cast<std::ptrdiff_t>(pos + n)));
      pos += n;
      // Exact after every append, not only at the end.
      const auto range = grown.valueRange(0, grown.size());
      QCOMPARE(range, bruteRange(s.y, 0, pos));
    }
    QCOMPARE(grown.coarseLevels(), whole.coarseLevels());
    for (int l = 1; l <= whole.coarseLevels(); ++l) {
      QCOMPARE(grown.level(l).size(), whole.level(l).size());
      for (std::size_t k = 0; k < whole.level(l).size(); ++k) {
        QCOMPARE(grown.level(l)[k].lo, whole.level(l)[k].lo);
        QCOMPARE(grown.level(l)[k].hi, whole.level(l)[k].hi);
        QCOMPARE(grown.level(l)[k].gap, whole.level(l)[k].gap);
      }
    }
  }

  // A line over another's x (a smoothed line over its raw line's) is the line that owns the
  // same x: the same size, x, levels and drawn points, after an assign and after appends.
  void aLineOverAnothersXIsTheSame() {
    QRandomGenerator random(31);
    const Series raw = randomSeries(random, 3000), other = randomSeries(random, 3000);
    SeriesPyramid owner, over, own;
    owner.assign(raw.x, raw.y);
    over.assignOverXOf(&owner, std::vector<double>(other.y.begin(), other.y.begin() + 2000));
    own.assign(std::vector<double>(raw.x.begin(), raw.x.begin() + 2000),
               std::vector<double>(other.y.begin(), other.y.begin() + 2000));
    owner.assign(std::vector<double>(raw.x.begin(), raw.x.begin() + 2000),
                 std::vector<double>(raw.y.begin(), raw.y.begin() + 2000));
    const std::vector<double> moreX(raw.x.begin() + 2000, raw.x.end()), moreY(other.y.begin() + 2000, other.y.end());
    for (int round = 0; round < 2; ++round) {
      QCOMPARE(over.size(), own.size());
      QCOMPARE(std::vector<double>(over.xs().begin(), over.xs().begin() + static_cast<std::ptrdiff_t>(over.size())),
               own.xs());
      QCOMPARE(over.coarseLevels(), own.coarseLevels());
      for (std::size_t columns : {std::size_t(10), std::size_t(100), std::size_t(5000)}) {
        std::vector<std::size_t> a, b;
        over.forEachDrawn(0, over.size(), columns, [&](std::size_t i) { a.push_back(i); });
        own.forEachDrawn(0, own.size(), columns, [&](std::size_t i) { b.push_back(i); });
        QCOMPARE(a, b);
      }
      QCOMPARE(over.lowerBound(raw.x[1500]), own.lowerBound(raw.x[1500]));
      owner.append(moreX, std::vector<double>(raw.y.begin() + 2000, raw.y.end()));  // the owner's x first
      over.append(moreX, moreY);
      own.append(moreX, moreY);
    }
  }

  void rangesMatchBruteForce() {
    QRandomGenerator random(30);
    const Series s = randomSeries(random, 20011);
    SeriesPyramid p;
    p.assign(s.x, s.y);
    for (int t = 0; t < 2000; ++t) {
      std::size_t a = random.bounded(static_cast<quint32>(s.x.size() + 1));
      std::size_t b = random.bounded(static_cast<quint32>(s.x.size() + 1));
      if (a > b) std::swap(a, b);
      QCOMPARE(p.valueRange(a, b), bruteRange(s.y, a, b));
    }
    QCOMPARE(p.valueRange(0, s.x.size() + 10), bruteRange(s.y, 0, s.x.size()));
    QVERIFY(!p.valueRange(s.x.size() / 3, s.x.size() / 3 + 300));  // the NaN run
  }

  void drawnPointsKeepExtremesAndGaps() {
    QRandomGenerator random(31);
    const Series s = randomSeries(random, 30011);
    SeriesPyramid p;
    p.assign(s.x, s.y);
    for (int t = 0; t < 300; ++t) {
      std::size_t a = random.bounded(static_cast<quint32>(s.x.size()));
      std::size_t b = random.bounded(static_cast<quint32>(s.x.size()));
      if (a > b) std::swap(a, b);
      const std::size_t columns = 1 + random.bounded(2000);
      std::vector<std::size_t> drawn;
      p.forEachDrawn(a, b, columns, [&](std::size_t i) { drawn.push_back(i); });
      for (std::size_t k = 0; k < drawn.size(); ++k) {
        QVERIFY(drawn[k] >= a && drawn[k] < b);
        if (k > 0) QVERIFY(drawn[k - 1] < drawn[k]);
      }
      // The extremes of what is drawn are the range's.
      std::vector<double> ys;
      for (std::size_t i : drawn) ys.push_back(s.y[i]);
      QCOMPARE(bruteRange(ys, 0, ys.size()), bruteRange(s.y, a, b));
      // No line joins two drawn points across a point that is not finite.
      for (std::size_t k = 1; k < drawn.size(); ++k) {
        if (!std::isfinite(s.y[drawn[k - 1]]) || !std::isfinite(s.y[drawn[k]])) continue;
        for (std::size_t i = drawn[k - 1] + 1; i < drawn[k]; ++i)
          QVERIFY2(std::isfinite(s.y[i]), qPrintable(QString("gap at %1 crossed").arg(i)));
      }
      // Few points per column: every one of them.
      if (b - a <= 4 * columns) QCOMPARE(drawn.size(), b - a);
    }
  }

  void drawsAboutTwoPointsPerBucket() {
    std::vector<double> x, y;
    for (int i = 0; i < 1000000; ++i) {
      x.push_back(i);
      y.push_back(std::sin(i * 0.001) + (i % 7) * 0.01);
    }
    SeriesPyramid p;
    p.assign(x, y);
    std::size_t drawn = 0;
    p.forEachDrawn(0, p.size(), 1000, [&](std::size_t) { ++drawn; });
    QVERIFY2(drawn >= 1000 && drawn <= 2 * SeriesPyramid::kFanOut * 1000 + 200, qPrintable(QString::number(drawn)));
    // Zoomed in to 2,000 points on 1,000 columns: every point.
    drawn = 0;
    p.forEachDrawn(500000, 502000, 1000, [&](std::size_t) { ++drawn; });
    QCOMPARE(drawn, std::size_t(2000));
    QCOMPARE(p.lowerBound(499999.5), std::size_t(500000));
    QCOMPARE(p.lowerBound(-1), std::size_t(0));
    QCOMPARE(p.lowerBound(2e6), p.size());
  }

  void emptyAndTiny() {
    SeriesPyramid p;
    QVERIFY(!p.valueRange(0, 10));
    int calls = 0;
    p.forEachDrawn(0, 10, 100, [&](std::size_t) { ++calls; });
    QCOMPARE(calls, 0);
    p.append({1, 2, 3}, {5, std::nan(""), 4});
    QCOMPARE(p.coarseLevels(), 0);
    QCOMPARE(p.valueRange(0, 3), std::make_optional(std::make_pair(4.0, 5.0)));
    p.forEachDrawn(0, 3, 1, [&](std::size_t) { ++calls; });
    QCOMPARE(calls, 3);
    p.append({4}, {1});
    QCOMPARE(p.coarseLevels(), 1);
    QCOMPARE(p.level(1).front().lo, 3u);
    QVERIFY(p.level(1).front().gap);
  }
};

QTEST_GUILESS_MAIN(SeriesPyramidTest)
#include "series_pyramid_test.moc"
