// The Compare page's models over real run folders: stable colours, the summary table against
// figures worked out by hand, sorting, CSV, the config diff, live updates, and named sets.
// Every model runs under QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QtTest>

#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/comparison_summary_model.h"
#include "runs/config_diff_model.h"
#include "runs/run_registry.h"
#include "runs/run_session.h"

using namespace traindeck;

namespace {

void writeFile(const QString& path, const QByteArray& text, QIODevice::OpenMode mode = QIODevice::WriteOnly) {
  QFile file(path);
  QVERIFY2(file.open(mode), qPrintable(path));
  file.write(text);
}

// A run folder: run.json, config.yaml and metrics.jsonl with train records of the given losses
// (steps 1.., one second apart from t=100, tokens/s 1000*step) and an eval every second step.
QString makeRun(const QString& root, const QString& name, const QString& status, const QString& config,
                const QVector<double>& losses) {
  const QString dir = root + "/" + name;
  QDir().mkpath(dir);
  writeFile(dir + "/run.json", QString("{\"id\":\"%1\",\"name\":\"%1\",\"status\":\"%2\"}").arg(name, status).toUtf8());
  writeFile(dir + "/config.yaml", config.toUtf8());
  QByteArray metrics =
      "{\"kind\":\"header\",\"time\":99,\"schema\":1,\"parameters\":5000,\"world_size\":2,\"total_steps\":10}\n";
  for (int i = 0; i < losses.size(); ++i) {
    const int step = i + 1;
    metrics += QString("{\"kind\":\"train\",\"time\":%1,\"step\":%2,\"tokens\":%3,\"loss\":%4,\"tokens_per_s\":%5}\n")
                   .arg(100 + i)
                   .arg(step)
                   .arg(step * 64)
                   .arg(losses[i])
                   .arg(1000 * step)
                   .toUtf8();
    if (step % 2 == 0)
      metrics += QString("{\"kind\":\"eval\",\"time\":%1.5,\"step\":%2,\"tokens\":%3,\"val_loss\":%4}\n")
                     .arg(100 + i)
                     .arg(step)
                     .arg(step * 64)
                     .arg(losses[i] + 0.5)
                     .toUtf8();
  }
  writeFile(dir + "/metrics.jsonl", metrics);
  return dir;
}

QVariant cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
  return model.data(model.index(row, column), role);
}

}  // namespace

class ComparisonTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;
  QString m_a, m_b, m_c;

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    m_a = makeRun(m_root.path(), "a", "finished", "strategy: {kind: ddp, precision: fp32}\noptimizer: {lr: 0.001}\n",
                  {4.0, 3.0, 2.5, 2.0});
    m_b = makeRun(m_root.path(), "b", "failed",
                  "strategy: {kind: zero1, precision: bf16}\noptimizer: {lr: 0.002, betas: [0.9, 0.95]}\n",
                  {4.0, 2.0, 1.5});
    m_c = makeRun(m_root.path(), "c", "finished", "strategy: {kind: ddp, precision: fp32}\noptimizer: {lr: 0.001}\n",
                  {5.0, 4.0, 3.5, 3.0, 2.9, 2.8});
  }

  void coloursStayWithTheirRuns() {
    RunRegistry registry;
    Comparison comparison(registry);
    QVERIFY(comparison.setRuns({m_a, m_b, m_c}).isEmpty());
    QCOMPARE(comparison.size(), 3);
    QCOMPARE(comparison.run(0).colorSlot, 0);
    QCOMPARE(comparison.run(2).colorSlot, 2);
    // Dropping b and reordering keeps a's and c's colours; a new run takes the free one (b's).
    comparison.setRuns({m_c, m_a});
    QCOMPARE(comparison.run(0).colorSlot, 2);
    QCOMPARE(comparison.run(1).colorSlot, 0);
    comparison.setRuns({m_c, m_a, m_b});
    QCOMPARE(comparison.run(2).colorSlot, 1);
    QVERIFY(comparisonColor(0) != comparisonColor(1));
    QSet<QRgb> distinct;
    for (int slot = 0; slot < Comparison::kColorCount; ++slot) distinct.insert(comparisonColor(slot).rgb());
    QCOMPARE(distinct.size(), Comparison::kColorCount);
    QCOMPARE(comparisonColor(Comparison::kColorCount + 3), comparisonColor(3));  // past them, again
  }

  void saysWhatItLeavesOut() {
    RunRegistry registry;
    Comparison comparison(registry);
    const QString why = comparison.setRuns({m_a, m_root.path() + "/nothing-here", m_b});
    QCOMPARE(comparison.size(), 2);
    QVERIFY2(why.contains("nothing-here") && why.contains("no run.json"), qPrintable(why));
    // Any number of runs: more than there are colours, each in a slot of its own.
    QStringList many;
    for (int i = 0; i < Comparison::kColorCount + 5; ++i)
      many << makeRun(m_root.path() + "/many", QString("r%1").arg(i), "finished", "seed: 1\n", {1.0});
    QCOMPARE(comparison.setRuns(many), QString());
    QCOMPARE(comparison.size(), Comparison::kColorCount + 5);
    QSet<int> colorSlots;
    for (int i = 0; i < comparison.size(); ++i) colorSlots.insert(comparison.run(i).colorSlot);
    QCOMPARE(colorSlots.size(), comparison.size());
  }

  void twentyRunsAreFollowedByOneThread() {
    QStringList runs;
    for (int i = 0; i < Comparison::kColorCount; ++i)
      runs << makeRun(m_root.path() + "/twenty", QString("r%1").arg(i), "running", "seed: 1\n", {3.0, 2.0, 1.5});
    // Threads of the process, and those of them that follow runs. A thread another test left
    // may end meanwhile, so the total may only not grow by more than the one follower.
    const auto threads = [](const QString& named = {}) {
      int count = 0;
      for (const QString& task : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm("/proc/self/task/" + task + "/comm");
        if (named.isEmpty() || (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == named)) ++count;
      }
      return count;
    };
    // QThread::wait() returns before the system thread is gone: an earlier test's follower may
    // still be listed for a moment.
    QTRY_COMPARE(threads("run-followers"), 0);
    const int before = threads();
    RunRegistry registry;  // its follower thread is the only one this adds
    Comparison comparison(registry);
    QCOMPARE(comparison.setRuns(runs), QString());
    for (int i = 0; i < comparison.size(); ++i) QTRY_COMPARE(comparison.store(i).train().size(), std::size_t(3));
    QCOMPARE(threads("run-followers"), 1);
    QVERIFY2(threads() <= before + 1, qPrintable(QString("%1 threads, %2 before").arg(threads()).arg(before)));
    QCOMPARE(registry.liveSessions(), Comparison::kColorCount);
    // The Monitor showing one of them shares its session: no second follower.
    const std::shared_ptr<const RunSession> shown = registry.session(runs[4]);
    QCOMPARE(registry.liveSessions(), Comparison::kColorCount);
    QCOMPARE(shown->metrics().train().size(), std::size_t(3));
    QCOMPARE(&shown->metrics(), &comparison.store(4));
    QCOMPARE(threads("run-followers"), 1);
    QVERIFY(threads() <= before + 1);
    comparison.setRuns(runs.mid(0, 2));  // the runs let go end, but the one still shown
    QCOMPARE(registry.liveSessions(), 3);
  }

  void summaryTableMatchesHandFigures() {
    RunRegistry registry;
    Comparison comparison(registry);
    comparison.setRuns({m_a, m_b, m_c});
    ComparisonSummaryModel model(&comparison);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 3);
    using M = ComparisonSummaryModel;
    // The followers read the metrics in their thread; the table fills as they arrive.
    for (int row = 0; row < 3; ++row) QTRY_VERIFY(cell(model, row, M::FinalLossColumn, M::SortRole).isValid());
    // Run a: losses 4, 3, 2.5, 2 -> final 2; val 3.5 (step 2) and 2.5 (step 4) -> best 2.5 at 4;
    // tokens/s 1000..4000 -> median 2500; first record at 100, last the eval at 103.5 -> 3.5 s.
    QCOMPARE(cell(model, 0, M::FinalLossColumn, M::SortRole).toDouble(), 2.0);
    QCOMPARE(cell(model, 0, M::BestValLossColumn, M::SortRole).toDouble(), 2.5);
    QCOMPARE(cell(model, 0, M::BestValStepColumn).toLongLong(), 4);
    QCOMPARE(cell(model, 0, M::MedianTokensColumn, M::SortRole).toDouble(), 2500.0);
    QCOMPARE(cell(model, 0, M::WallTimeColumn, M::SortRole).toDouble(), 3.5);
    QCOMPARE(cell(model, 0, M::WallTimeColumn).toString(), QString("4s"));
    // Run b: losses 4, 2, 1.5 -> final 1.5; one eval 2.5 at step 2; median of 1000..3000 is 2000;
    // train records at 100..102 (its eval at 101.5 is not the last): 2 s.
    QCOMPARE(cell(model, 1, M::FinalLossColumn).toString(), QString("1.5000"));
    QCOMPARE(cell(model, 1, M::BestValStepColumn).toLongLong(), 2);
    QCOMPARE(cell(model, 1, M::MedianTokensColumn, M::SortRole).toDouble(), 2000.0);
    QCOMPARE(cell(model, 1, M::WallTimeColumn, M::SortRole).toDouble(), 2.0);
    QCOMPARE(cell(model, 1, M::StatusColumn).toString(), QString("failed"));
    QCOMPARE(cell(model, 1, M::StrategyColumn).toString(), QString("zero1"));
    QCOMPARE(cell(model, 1, M::PrecisionColumn).toString(), QString("bf16"));
    QCOMPARE(cell(model, 2, M::ParametersColumn, M::SortRole).toLongLong(), 5000);
    QCOMPARE(cell(model, 2, M::WorldSizeColumn).toLongLong(), 2);
    QCOMPARE(cell(model, 2, M::RunColumn, Qt::DecorationRole).value<QColor>(), comparisonColor(2));

    // Sorted by final loss through a proxy: b (1.5), a (2.0), c (2.8).
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(M::SortRole);
    proxy.sort(M::FinalLossColumn);
    QStringList order;
    for (int row = 0; row < 3; ++row) order << cell(proxy, row, M::RunColumn).toString();
    QCOMPARE(order, QStringList({"b", "a", "c"}));

    const QStringList csv = model.toCsv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 4);
    QVERIFY(csv[0].startsWith("run,status,final_loss,best_val_loss,best_val_step,median_tokens_per_s"));
    QCOMPARE(csv[1], QString("a,finished,2,2.5,4,2500,3.5,5000,2,ddp,fp32,") + m_a);
  }

  void configDiffShowsWhatDiffers() {
    RunRegistry registry;
    Comparison comparison(registry);
    comparison.setRuns({m_a, m_b, m_c});
    ConfigDiffModel model(&comparison);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.columnCount(), 4);
    QStringList keys;
    for (int row = 0; row < model.rowCount(); ++row) keys << cell(model, row, 0).toString();
    QCOMPARE(keys, QStringList({"strategy.kind", "strategy.precision", "optimizer.lr", "optimizer.betas"}));
    // b is the odd one out everywhere; a and c agree.
    for (int row = 0; row < model.rowCount(); ++row) {
      QVERIFY(!cell(model, row, 1, ConfigDiffModel::DiffersRole).toBool());
      QVERIFY(cell(model, row, 2, ConfigDiffModel::DiffersRole).toBool());
      QVERIFY(cell(model, row, 2, Qt::BackgroundRole).isValid());
    }
    QCOMPARE(cell(model, 3, 1).toString(), QString("—"));  // a has no betas
    QCOMPARE(cell(model, 3, 2).toString(), QString("[0.9, 0.95]"));
    QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QString("b"));
    QCOMPARE(model.headerData(2, Qt::Horizontal, Qt::ForegroundRole).value<QBrush>().color(),
             comparisonColor(comparison.run(1).colorSlot));
    model.setShowAll(true);
    QCOMPARE(model.rowCount(), 4);  // every key differs here; now with a run that agrees
    comparison.setRuns({m_a, m_c});
    QCOMPARE(model.rowCount(), 3);  // a's and c's keys, none of them differing
    QVERIFY(!cell(model, 0, 0, ConfigDiffModel::DiffersRole).toBool());
    model.setShowAll(false);
    QCOMPARE(model.rowCount(), 0);  // a and c have the same config
  }

  void liveRunsKeepUpdating() {
    QTemporaryDir root;
    const QString live = makeRun(root.path(), "live", "running", "seed: 1\n", {3.0, 2.0});
    const QString done = makeRun(root.path(), "done", "finished", "seed: 2\n", {3.0});
    RunRegistry registry;
    Comparison comparison(registry);
    comparison.setRuns({live, done});
    ComparisonSummaryModel model(&comparison);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(cell(model, 0, ComparisonSummaryModel::FinalLossColumn, ComparisonSummaryModel::SortRole),
                 QVariant(2.0));
    writeFile(live + "/metrics.jsonl", "{\"kind\":\"train\",\"time\":102,\"step\":3,\"tokens\":192,\"loss\":1.25}\n",
              QIODevice::Append);
    QTRY_COMPARE(cell(model, 0, ComparisonSummaryModel::FinalLossColumn).toString(), QString("1.2500"));
    writeFile(live + "/run.json", "{\"id\":\"live\",\"name\":\"live\",\"status\":\"finished\"}");
    QTRY_COMPARE(cell(model, 0, ComparisonSummaryModel::StatusColumn).toString(), QString("finished"));
  }

  void namedSetsAreSavedAndReopened() {
    QTemporaryDir root;
    const QString inside = makeRun(root.path(), "inside", "finished", "seed: 1\n", {1.0});
    const QString outside = m_a;
    {
      ComparisonSets sets(root.path());
      QVERIFY(sets.load().isEmpty());
      QVERIFY(sets.save({"sweep", {inside, outside}}).isEmpty());
      QVERIFY(sets.save({"other", {outside}}).isEmpty());
      QVERIFY(sets.save({"sweep", {outside, inside}}).isEmpty());  // replaces
      QVERIFY(!sets.save({"  ", {inside}}).isEmpty());
    }
    QFile file(root.path() + "/comparisons.json");
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.contains("\"inside\""), text.constData());  // stored relative to the runs root
    file.close();
    ComparisonSets reopened(root.path());
    QVERIFY(reopened.load().isEmpty());
    QCOMPARE(reopened.sets().size(), 2);
    QCOMPARE(reopened.find("sweep")->runDirs, QStringList({outside, inside}));
    QVERIFY(reopened.remove("other").isEmpty());
    ComparisonSets third(root.path());
    third.load();
    QCOMPARE(third.sets().size(), 1);

    writeFile(root.path() + "/comparisons.json", "{\"version\": 1, \"sets\": [");
    ComparisonSets broken(root.path());
    const QString error = broken.load();
    QVERIFY2(error.contains("not valid JSON") && error.contains("comparisons.json"), qPrintable(error));
    QVERIFY(broken.sets().isEmpty());
  }
};

QTEST_MAIN(ComparisonTest)
#include "comparison_test.moc"
