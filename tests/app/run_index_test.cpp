// The run list's summary index on metrics.jsonl files written here: each metric's last, min, max
// and best step against figures worked out by hand; a grown file read on from where it stopped
// equals a full build; a replaced file read again; a restart drawn from the cache with no metrics
// parsed or imported run read; a corrupt cache file built again; the cache files of runs that are
// gone removed; metric columns by name; Open folder.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "runs/run_index.h"
#include "runs/run_indexer.h"
#include "runs/run_list_model.h"

using namespace traindeck;

namespace {

void writeFile(const QString& path, const QByteArray& text, QIODevice::OpenMode mode = QIODevice::WriteOnly) {
  QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
  QFile file(path);
  QVERIFY2(file.open(mode), qPrintable(path));
  QCOMPARE(file.write(text), text.size());
}

QByteArray trainLine(int step, double loss, double tokensPerSecond) {
  return QString(R"({"kind":"train","time":%1,"step":%2,"tokens":%3,"loss":%4,"lr":0.001,"tokens_per_s":%5})"
                 "\n")
      .arg(1764590400 + step)
      .arg(step)
      .arg(64 * step)
      .arg(loss)
      .arg(tokensPerSecond)
      .toUtf8();
}

QByteArray evalLine(int step, double valLoss) {
  return QString(R"({"kind":"eval","time":%1,"step":%2,"tokens":%3,"val_loss":%4})"
                 "\n")
      .arg(1764590400 + step)
      .arg(step)
      .arg(64 * step)
      .arg(valLoss)
      .toUtf8();
}

// loss 3.0 2.5 2.7 2.2 2.4 at steps 1..5, tokens_per_s 100 300 200 250 150, val_loss 2.9 (2),
// 2.6 (4), 2.65 (5), a line that is not JSON between them.
QByteArray handMetrics() {
  return R"({"kind":"header","time":1764590400,"schema":1,"run_id":"r","total_steps":10})"
         "\n" +
         trainLine(1, 3.0, 100) + trainLine(2, 2.5, 300) + evalLine(2, 2.9) + "not json\n" + trainLine(3, 2.7, 200) +
         trainLine(4, 2.2, 250) + evalLine(4, 2.6) + trainLine(5, 2.4, 150) + evalLine(5, 2.65);
}

void makeRun(const QString& dir, const QString& name, const QByteArray& metrics) {
  writeFile(dir + "/run.json",
            QString(R"({"id":"%1","name":"%2","status":"finished","created":"2026-12-01T10:00:00Z"})")
                .arg(QFileInfo(dir).fileName(), name)
                .toUtf8());
  writeFile(dir + "/config.yaml", "optimizer:\n  lr: 0.001\nseed: 3\n");
  writeFile(dir + "/metrics.jsonl", metrics);
}

bool near(double a, double b) {
  return std::abs(a - b) < 1e-6;
}

int rowOfName(const RunListModel& model, const QString& name) {
  for (int r = 0; r < model.rowCount(); ++r)
    if (model.runAt(r).name == name) return r;
  return -1;
}

}  // namespace

class RunIndexTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_home;

 private slots:
  void initTestCase() {
    QVERIFY(m_home.isValid());
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_home.path() + "/config"));
    qputenv("XDG_CACHE_HOME", QFile::encodeName(m_home.path() + "/cache"));
  }

  void summariesMatchAHandComputation() {
    QTemporaryDir dir;
    makeRun(dir.path(), "hand", handMetrics());
    RunIndexEntry entry;
    const qint64 parsed = updateTrainDeckRunEntry(entry, dir.path());
    QCOMPARE(parsed, QFileInfo(dir.filePath("metrics.jsonl")).size());
    QCOMPARE(entry.step, qint64(5));
    QCOMPARE(entry.totalSteps, qint64(10));
    const MetricSummary* loss = entry.metric("loss");
    QVERIFY(loss != nullptr);
    QCOMPARE(loss->count, qint64(5));
    QVERIFY(near(loss->last, 2.4) && loss->lastStep == 5);
    QVERIFY(near(loss->min, 2.2) && loss->minStep == 4);
    QVERIFY(near(loss->max, 3.0) && loss->maxStep == 1);
    QCOMPARE(loss->bestStep(higherIsBetter(u"loss")), qint64(4));
    const MetricSummary* valLoss = entry.metric("val_loss");
    QVERIFY(valLoss != nullptr);
    QCOMPARE(valLoss->count, qint64(3));
    QVERIFY(near(valLoss->last, 2.65) && valLoss->lastStep == 5);
    QVERIFY(near(valLoss->min, 2.6) && valLoss->minStep == 4);
    QVERIFY(near(valLoss->max, 2.9) && valLoss->maxStep == 2);
    // Higher is better for a rate of work: its best step is its highest value's.
    const MetricSummary* speed = entry.metric("tokens_per_s");
    QVERIFY(speed != nullptr);
    QVERIFY(higherIsBetter(u"tokens_per_s"));
    QCOMPARE(speed->bestStep(true), qint64(2));
    QVERIFY(near(speed->max, 300));
    QVERIFY(entry.metric("lr") != nullptr);
    QVERIFY(entry.metric("grad_norm") == nullptr);  // never logged: no summary
    QVERIFY(near(entry.lastLoss(), 2.4));
    QCOMPARE(entry.config.value("optimizer.lr"), QString("0.001"));
    QCOMPARE(entry.config.value("seed"), QString("3"));
    // The rule for best: accuracy-like names (any path segment's last) higher, the rest lower.
    QVERIFY(higherIsBetter(u"validation/epoch_accuracy"));
    QVERIFY(higherIsBetter(u"val_acc"));
    QVERIFY(!higherIsBetter(u"val_loss"));
    QVERIFY(!higherIsBetter(u"perplexity"));
  }

  void aGrownFileReadOnEqualsAFullBuild() {
    QTemporaryDir dir;
    const QByteArray all = handMetrics();
    const qsizetype cut = all.indexOf("not json") + 5;  // the first part ends inside a line
    makeRun(dir.path(), "grown", all.left(cut));
    RunIndexEntry grown;
    QCOMPARE(updateTrainDeckRunEntry(grown, dir.path()), qint64(cut));
    QVERIFY(grown.parsedBytes < cut);  // the cut line is left for the next read
    const qint64 stoppedAt = grown.parsedBytes;
    writeFile(dir.filePath("metrics.jsonl"), all.mid(cut), QIODevice::Append);
    // Read on from the last whole line only: not the file again.
    QCOMPARE(updateTrainDeckRunEntry(grown, dir.path()), all.size() - stoppedAt);
    RunIndexEntry whole;
    updateTrainDeckRunEntry(whole, dir.path());
    QCOMPARE(grown, whole);
    // Nothing new: nothing parsed.
    QCOMPARE(updateTrainDeckRunEntry(grown, dir.path()), qint64(0));
    QCOMPARE(grown, whole);
  }

  void aReplacedFileIsReadFromItsStart() {
    QTemporaryDir dir;
    makeRun(dir.path(), "replaced", handMetrics());
    RunIndexEntry entry;
    updateTrainDeckRunEntry(entry, dir.path());
    // A new file, longer than the old one, with other first bytes.
    QByteArray other = R"({"kind":"header","time":1764590400,"schema":1,"run_id":"other","total_steps":20})"
                       "\n";
    for (int s = 1; s <= 12; ++s) other += trainLine(s, 10.0 - s, 100);
    writeFile(dir.filePath("metrics.jsonl"), other);
    QCOMPARE(updateTrainDeckRunEntry(entry, dir.path()), other.size());
    QVERIFY(near(entry.metric("loss")->min, -2.0));
    QCOMPARE(entry.metric("loss")->count, qint64(12));
    QVERIFY(entry.metric("val_loss") == nullptr);
    // A shorter file (truncated) too.
    writeFile(dir.filePath("metrics.jsonl"), trainLine(1, 7.0, 100));
    updateTrainDeckRunEntry(entry, dir.path());
    QCOMPARE(entry.metric("loss")->count, qint64(1));
    QVERIFY(near(entry.metric("loss")->last, 7.0));
  }

  void aRestartDrawsTheListFromTheCacheWithNoMetricsParsed() {
    QTemporaryDir root, cache;
    for (int i = 0; i < 3; ++i) {
      QByteArray metrics = handMetrics();
      metrics += trainLine(6 + i, 1.0 + i, 100);  // runs 0, 1, 2: last loss 1, 2, 3
      makeRun(root.filePath(QString("20261201-10000%1-run").arg(i)), QString("run %1").arg(i), metrics);
    }
    {
      RunListModel cold(nullptr, cache.path());
      QAbstractItemModelTester tester(&cold, QAbstractItemModelTester::FailureReportingMode::QtTest);
      cold.setRunsRoot(root.path());
      QCOMPARE(cold.rowCount(), 3);
      QVERIFY(cold.metricsBytesRead() > 0);  // the ends of each metrics.jsonl, for the first draw
      QTRY_VERIFY(cold.runIndex()->idle());
      QVERIFY(cold.runIndex()->bytesParsed() > 0);
      QCOMPARE(QDir(cache.path()).entryList({"*.json"}, QDir::Files).size(), 3);
    }
    RunListModel warm(nullptr, cache.path());
    QAbstractItemModelTester tester(&warm, QAbstractItemModelTester::FailureReportingMode::QtTest);
    warm.setMetricColumns(defaultMetricColumns("val_loss") << MetricColumn{.metric = "loss", .stat = MetricStat::Last});
    warm.setConfigColumns({"seed"});
    warm.setRunsRoot(root.path());
    QCOMPARE(warm.rowCount(), 3);
    const int run2 = rowOfName(warm, "run 2");
    QVERIFY(run2 >= 0);
    QCOMPARE(warm.runAt(run2).step, qint64(8));
    QCOMPARE(warm.runAt(run2).totalSteps, qint64(10));
    QVERIFY(near(warm.runAt(run2).lastLoss, 3.0));
    const int first = warm.firstMetricColumn();
    QCOMPARE(warm.headerData(first, Qt::Horizontal).toString(), QString("val_loss last"));
    QCOMPARE(warm.headerData(first + 1, Qt::Horizontal).toString(), QString("val_loss min"));
    QCOMPARE(warm.headerData(first + 2, Qt::Horizontal).toString(), QString("val_loss best step"));
    QVERIFY(near(warm.index(run2, first).data(Qt::EditRole).toDouble(), 2.65));
    QVERIFY(near(warm.index(run2, first + 1).data(Qt::EditRole).toDouble(), 2.6));
    QCOMPARE(warm.index(run2, first + 2).data(Qt::EditRole).toLongLong(), 4);
    QVERIFY(near(warm.index(run2, first + 3).data(Qt::EditRole).toDouble(), 3.0));
    QCOMPARE(warm.index(run2, RunListModel::ColumnCount).data().toString(), QString("3"));  // seed
    // Nothing parsed: neither the list's own reads nor the index's.
    QCOMPARE(warm.metricsBytesRead(), qint64(0));
    QVERIFY(warm.runIndex()->idle());
    QCOMPARE(warm.runIndex()->bytesParsed(), qint64(0));
    QCOMPARE(warm.runIndex()->metricNames().mid(0, 3), QStringList({"loss", "val_loss", "lr"}));

    // A run that grows: the list reads its ends, the index only what was added.
    const QString grown = warm.runAt(run2).path + "/metrics.jsonl";
    const QByteArray added = trainLine(9, 0.5, 100) + evalLine(9, 0.75);
    writeFile(grown, added, QIODevice::Append);
    warm.rescan();
    QTRY_VERIFY(warm.runIndex()->idle());
    QCOMPARE(warm.runIndex()->bytesParsed(), added.size());
    QTRY_VERIFY(near(warm.index(run2, first + 1).data(Qt::EditRole).toDouble(), 0.75));
    QCOMPARE(warm.index(run2, first + 2).data(Qt::EditRole).toLongLong(), 9);
  }

  void aCorruptCacheFileIsBuiltAgain() {
    QTemporaryDir root, cache;
    const QString run = root.filePath("20261201-100000-run");
    makeRun(run, "corrupt", handMetrics());
    const QString cacheFile = runIndexCacheFile(cache.path(), run);
    writeFile(cacheFile, "{\"version\":1,\"kind\":\"traindeck\",\"path\":\"");  // cut short
    RunIndex index(cache.path());
    QVERIFY(index.entry(run) == nullptr);  // not an entry: none
    index.refreshTrainDeckRun(run);
    QTRY_VERIFY(index.idle());
    QVERIFY(index.entry(run) != nullptr);
    QCOMPARE(index.entry(run)->metric("loss")->minStep, qint64(4));
    QFile rebuilt(cacheFile);
    QVERIFY(rebuilt.open(QIODevice::ReadOnly));
    const std::optional<RunIndexEntry> decoded = decodeRunIndexEntry(rebuilt.readAll());
    QVERIFY(decoded.has_value());
    QCOMPARE(*decoded, *index.entry(run));
    // Other damage: not JSON, another version, a metric that is not a summary, another run's path.
    QVERIFY(!decodeRunIndexEntry("\x00\xff garbage").has_value());
    QVERIFY(!decodeRunIndexEntry(encodeRunIndexEntry(*decoded).replace("\"version\":1", "\"version\":99")));
    QVERIFY(!decodeRunIndexEntry(encodeRunIndexEntry(*decoded).replace("\"count\":5", "\"count\":\"x\"")));
    writeFile(runIndexCacheFile(cache.path(), run + "-other"), encodeRunIndexEntry(*decoded));
    QVERIFY(!loadRunIndexEntry(cache.path(), run + "-other").has_value());
    // The list over a corrupt file: drawn from the run's files, then from the entry built again.
    writeFile(cacheFile, "{\"version\":1,");
    RunListModel model(nullptr, cache.path());
    model.setMetricColumns({{.metric = "loss", .stat = MetricStat::Min}});
    model.setRunsRoot(root.path());
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(near(model.runAt(0).lastLoss, 2.4));
    QTRY_VERIFY(near(model.index(0, model.firstMetricColumn()).data(Qt::EditRole).toDouble(), 2.2));
  }

  void aMetricColumnIsNumericAndEmptyWhereARunHasNone() {
    QTemporaryDir root, cache;
    const double mins[] = {10, 9, 2};  // as text "10" would come before "2"
    for (int i = 0; i < 3; ++i)
      makeRun(root.filePath(QString("20261201-10000%1-run").arg(i)), QString("run %1").arg(i),
              trainLine(1, mins[i] + 1, 100) + trainLine(2, mins[i], 100));
    makeRun(root.filePath("20261201-100009-none"), "no loss", evalLine(1, 3.0));
    RunListModel model(nullptr, cache.path());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMetricColumns({{.metric = "loss", .stat = MetricStat::Min}});
    model.setRunsRoot(root.path());
    QTRY_VERIFY(model.runIndex()->idle());
    const int column = model.firstMetricColumn();
    QTRY_COMPARE(model.index(rowOfName(model, "run 0"), column).data(Qt::EditRole).typeId(), QMetaType::Double);
    for (int i = 0; i < 3; ++i) {
      const QModelIndex at = model.index(rowOfName(model, QString("run %1").arg(i)), column);
      QCOMPARE(at.data(Qt::EditRole).toDouble(), mins[i]);
      QCOMPARE(at.data().toString(), QString::number(mins[i]));
    }
    const QModelIndex none = model.index(rowOfName(model, "no loss"), column);
    QVERIFY(!none.data(Qt::EditRole).isValid());
    QCOMPARE(none.data().toString(), QString());
    // Titles read back as the columns they name; a title that names none is left out.
    QCOMPARE(metricColumnsFromTitles({"loss min", "eval/acc best step", "loss", "val_loss max"}),
             QList<MetricColumn>({{.metric = "loss", .stat = MetricStat::Min},
                                  {.metric = "eval/acc", .stat = MetricStat::BestStep},
                                  {.metric = "val_loss", .stat = MetricStat::Max}}));
    QCOMPARE(metricColumnTitles(defaultMetricColumns("val_acc")),
             QStringList({"val_acc last", "val_acc max", "val_acc best step"}));
  }

  void aRestartListsAnImportedRunFromTheCacheWithoutReadingIt() {
    QTemporaryDir root, cache;
    writeFile(root.filePath("llmc/main.log"), "s:1 trl:3.5\ns:2 trl:3.0\ns:2 tel:3.25\n");
    {
      RunListModel cold(nullptr, cache.path());
      cold.setRunsRoot(root.path());
      QCOMPARE(cold.rowCount(), 1);
      QCOMPARE(cold.runAt(0).step, qint64(0));  // not read by the scan
      QTRY_COMPARE(cold.runAt(0).step, qint64(2));
      QCOMPARE(cold.runIndex()->importsRead(), 1);
    }
    RunListModel warm(nullptr, cache.path());
    warm.setMetricColumns({{.metric = "val_loss", .stat = MetricStat::Min}});
    warm.setRunsRoot(root.path());
    QCOMPARE(warm.rowCount(), 1);
    QCOMPARE(warm.runAt(0).step, qint64(2));
    QVERIFY(near(warm.runAt(0).lastLoss, 3.0));
    QVERIFY(near(warm.index(0, warm.firstMetricColumn()).data(Qt::EditRole).toDouble(), 3.25));
    QVERIFY(warm.runIndex()->idle());
    QCOMPARE(warm.runIndex()->importsRead(), 0);
  }

  void theCacheFilesOfRunsThatAreGoneAreRemoved() {
    QTemporaryDir root, cache;
    const QString kept = root.filePath("20261201-100000-kept"), gone = root.filePath("20261201-100001-gone");
    makeRun(kept, "kept", handMetrics());
    makeRun(gone, "gone", handMetrics());
    const QString keptLog = root.filePath("kept/main.log"), goneLog = root.filePath("gone/main.log");
    writeFile(keptLog, "s:1 trl:3.5\n");
    writeFile(goneLog, "s:1 trl:3.5\n");
    writeFile(cache.filePath("notes.json"), "not an entry");  // not the index's to judge
    {
      RunListModel first(nullptr, cache.path());
      QSignalSpy removed(first.runIndex(), &RunIndex::goneEntriesRemoved);
      first.setRunsRoot(root.path());
      QVERIFY(removed.wait());
      QCOMPARE(removed.front().at(0).toInt(), 0);  // asked once, after the first scan: nothing gone
      QTRY_VERIFY(first.runIndex()->idle());
      QCOMPARE(QDir(cache.path()).entryList({"*.json"}, QDir::Files).size(), 5);
    }
    QVERIFY(QDir(gone).removeRecursively());
    QVERIFY(QDir(root.filePath("gone")).removeRecursively());
    RunListModel next(nullptr, cache.path());
    QSignalSpy removed(next.runIndex(), &RunIndex::goneEntriesRemoved);
    next.setRunsRoot(root.path());
    QCOMPARE(next.rowCount(), 2);
    QVERIFY(removed.wait());
    QCOMPARE(removed.front().at(0).toInt(), 2);
    for (const QString& path : {kept, keptLog})
      QVERIFY2(QFileInfo::exists(runIndexCacheFile(cache.path(), path)), qPrintable(path));
    for (const QString& path : {gone, goneLog})
      QVERIFY2(!QFileInfo::exists(runIndexCacheFile(cache.path(), path)), qPrintable(path));
    QVERIFY(QFileInfo::exists(cache.filePath("notes.json")));
    // A run of a store that holds several is there while its store is.
    QCOMPARE(importedRunPath(root.filePath("mlflow.db#4f2a")), root.filePath("mlflow.db"));
  }

  void openFolderListsTrainDeckAndOtherToolsRuns() {
    QTemporaryDir root, folder, empty, cache;
    makeRun(folder.filePath("20261201-100000-mine"), "mine", handMetrics());
    writeFile(folder.filePath("lightning_logs/version_0/metrics.csv"),
              "epoch,step,train_loss,val_acc\n0,9,2.5,\n0,19,2.0,\n0,19,,0.61\n1,29,1.5,\n1,29,,0.72\n");
    RunListModel model(nullptr, cache.path());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRunsRoot(root.path());
    QCOMPARE(model.rowCount(), 0);
    const RunListModel::FolderRuns found = model.openFolder(folder.path());
    QCOMPARE(found.problem, QString());
    QCOMPARE(found.runs.size(), 2);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.openedFolders(), QStringList({QFileInfo(folder.path()).absoluteFilePath()}));
    const int mine = model.rowOfPath(folder.filePath("20261201-100000-mine"));
    QVERIFY(mine >= 0);
    QVERIFY(!model.isImported(model.runAt(mine).path));
    QCOMPARE(model.runAt(mine).step, qint64(5));
    const int lightning = 1 - mine;
    QVERIFY(model.isImported(model.runAt(lightning).path));
    QCOMPARE(model.runAt(lightning).id, QFileInfo(folder.path()).fileName() + "/lightning_logs/version_0");
    QTRY_COMPARE(model.runAt(lightning).step, qint64(29));  // read in the index's thread
    QCOMPARE(model.index(lightning, RunListModel::SourceColumn).data().toString(), QString("CSV"));
    // Its scalars are in the index under their own names, best where higher is better.
    model.setMetricColumns({{.metric = "val_acc", .stat = MetricStat::BestStep}});
    QCOMPARE(model.index(lightning, model.firstMetricColumn()).data(Qt::EditRole).toLongLong(), 29);
    model.rescan();  // opened for the session: still listed
    QCOMPARE(model.rowCount(), 2);

    const RunListModel::FolderRuns none = model.openFolder(empty.path());
    QVERIFY(none.runs.isEmpty());
    QVERIFY2(none.problem.contains(empty.path()), qPrintable(none.problem));
    QVERIFY2(none.problem.contains("metrics.csv") && none.problem.contains("TensorBoard"), qPrintable(none.problem));
    QCOMPARE(model.openedFolders().size(), 1);
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(!model.openFolder(root.filePath("gone")).problem.isEmpty());
  }
};

QTEST_GUILESS_MAIN(RunIndexTest)
#include "run_index_test.moc"
