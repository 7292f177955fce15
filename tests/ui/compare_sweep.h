// The Compare page tests' fixture: TrainDeck run folders written on the spot, the learning-rate
// sweep's losses (three rates, four seeds) that the tests check lines against, and a Compare page
// over a runs root holding the sweep, made afresh for each test function.
#pragma once

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <functional>
#include <memory>

#include "compare_chart.h"
#include "compare_page.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/run_registry.h"

namespace traindeck::test {

inline const double kLearningRates[] = {1e-3, 3e-4, 1e-4};

// The sweep's train loss: the rate sets how fast it falls, the seed its offset and its noise (a
// hash of step and seed, the same on every machine).
inline double sweepLoss(int rate, int seed, int step) {
  const double hash = std::sin(step * 12.9898 + seed * 78.233) * 43758.5453;
  const double noise = hash - std::floor(hash) - 0.5;
  return 2.0 + 3.0 * std::exp(-step / (30.0 + 20.0 * rate)) + 0.25 * noise + 0.04 * (seed - 2.5);
}

inline void writeText(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile file(path);
  QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
  file.write(text);
}

// A finished TrainDeck run with train records at every `every`-th step up to `steps`, and an
// eval record (val_loss, the loss + 0.3) every 20th step.
inline QString writeRun(const QString& dir, const QString& config, int steps, int every,
                        const std::function<double(int)>& loss, double peakLr = 1e-3) {
  writeText(dir + "/run.json",
            QString(R"({"id":"%1","name":"%1","status":"finished"})").arg(QFileInfo(dir).fileName()).toUtf8());
  writeText(dir + "/config.yaml", config.toUtf8());
  QByteArray metrics =
      R"({"kind":"header","time":1764590400,"schema":1,"total_steps":)" + QByteArray::number(steps) + "}\n";
  for (int s = every; s <= steps; s += every) {
    metrics += QString(R"({"kind":"train","time":%1,"step":%2,"tokens":%3,"loss":%4,"lr":%5,"grad_norm":%6})")
                   .arg(1764590400 + s)
                   .arg(s)
                   .arg(s * 1024)
                   .arg(loss(s), 0, 'g', 10)
                   .arg(peakLr * std::min(1.0, s / 20.0), 0, 'g', 10)  // a warmup
                   .arg(0.5 + loss(s) / 4, 0, 'g', 10)
                   .toUtf8() +
               "\n";
    if (s % 20 == 0)
      metrics += QString(R"({"kind":"eval","time":%1.5,"step":%2,"tokens":%3,"val_loss":%4})")
                     .arg(1764590400 + s)
                     .arg(s)
                     .arg(s * 1024)
                     .arg(loss(s) + 0.3, 0, 'g', 10)
                     .toUtf8() +
                 "\n";
  }
  writeText(dir + "/metrics.jsonl", metrics);
  return dir;
}

// The sweep under `root`/sweep: lr<rate>-seed<seed>, rate 0..2 (kLearningRates), seed 1..4.
inline QStringList writeSweep(const QString& root) {
  QStringList runs;
  for (int rate = 0; rate < 3; ++rate)
    for (int seed = 1; seed <= 4; ++seed)
      runs << writeRun(
          root + QString("/sweep/lr%1-seed%2").arg(rate).arg(seed),
          QString("optimizer:\n  lr: %1\nseed: %2\n").arg(kLearningRates[rate]).arg(seed), 200, 1,
          [rate, seed](int s) { return sweepLoss(rate, seed, s); }, kLearningRates[rate]);
  return runs;
}

// A test class derives from it beside QObject and calls its set-up and tear-down from its own
// initTestCase, init and cleanup slots.
class CompareSweepFixture {
 protected:
  // The root with the sweep, and this process's XDG_CONFIG_HOME inside it.
  void writeSweepRoot() {
    QVERIFY(m_root.isValid());
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_root.path() + "/config"));
    m_sweep = writeSweep(m_root.path());
  }

  void makePage() {
    m_comparison = std::make_unique<Comparison>(m_registry);
    m_sets = std::make_unique<ComparisonSets>(m_root.path());
    m_page = std::make_unique<ComparePage>(m_comparison.get(), m_sets.get());
    m_page->resize(1500, 950);
    m_page->show();
    m_page->setSmoothing(0);
  }

  void dropPage() {
    m_page.reset();
    m_comparison.reset();
  }

  // Compares these runs once each has records.
  void open(const QStringList& runs) {
    m_page->compareRuns(runs);
    QCOMPARE(m_comparison->size(), runs.size());
    for (int i = 0; i < runs.size(); ++i) QTRY_VERIFY(m_comparison->store(i).train().size() > 0);
    m_page->redrawNow();
  }

  CompareChart* lossChart() const { return m_page->overlayCharts().front(); }

  // Draws the page at once and saves it as `name` in `folder`.
  void savePage(const QString& folder, const QString& name) {
    m_page->redrawNow();
    for (int round = 0; round < 3; ++round)  // controls shown or hidden: each layout, then its parent's
      QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    for (CompareChart* chart : m_page->overlayCharts() + m_page->gridCharts()) chart->replot();
    QDir().mkpath(folder);
    const QString path = QDir(folder).filePath(name);
    QVERIFY(m_page->grab().save(path));
    QVERIFY2(QFileInfo(path).size() > 30000, qPrintable(path + ": blank?"));
  }

  // Every config key but the seed: a group per learning rate.
  void groupBySeedlessConfig(bool members = false) {
    CompareGrouping grouping;
    grouping.by = {.kind = GroupBy::Kind::ConfigKeysExcept, .keys = {"seed"}, .pattern = {}};
    grouping.showMembers = members;
    m_page->setGrouping(grouping);
    m_page->redrawNow();
  }

  QTemporaryDir m_root;
  RunRegistry m_registry;
  std::unique_ptr<Comparison> m_comparison;
  std::unique_ptr<ComparisonSets> m_sets;
  std::unique_ptr<ComparePage> m_page;
  QStringList m_sweep;
};

}  // namespace traindeck::test
