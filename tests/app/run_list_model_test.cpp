// RunListModel under QAbstractItemModelTester on run directories made in a temp dir: order,
// fields from run.json and metrics.jsonl, then a new run, a status change and a removal, each
// arriving as the matching row signal rather than a reset.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "run_list_model.h"
#include "runlog/run_directory.h"

using namespace traindeck;

namespace {

void makeRun(const QString& root, const QString& id, const QString& created, RunStatus status,
             const QByteArray& metrics = {}) {
  QVERIFY(QDir(root).mkpath(id));
  RunInfo info;
  info.id = id.toStdString();
  info.name = "run " + id.toStdString();
  info.created = created.toStdString();
  info.status = status;
  RunPaths paths{QDir(root).filePath(id).toStdString()};
  QCOMPARE(writeRunInfo(paths, info), std::string());
  if (!metrics.isEmpty()) {
    QFile f(QString::fromStdString(paths.metrics()));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(metrics);
  }
}

QByteArray metricsWith(int lastStep, int totalSteps, int filler = 0) {
  QByteArray m =
      R"({"kind":"header","time":1,"schema":1,"run_id":"x","total_steps":)" + QByteArray::number(totalSteps) + "}\n";
  for (int s = 1; s <= lastStep; ++s)
    m += R"({"kind":"train","time":2,"step":)" + QByteArray::number(s) + R"(,"loss":)" + QByteArray::number(10.0 / s) +
         R"(,"padding":")" + QByteArray(filler, 'p') + "\"}\n";
  return m;
}

}  // namespace

class RunListModelTest : public QObject {
  Q_OBJECT
 private slots:
  void followsTheRunsRoot() {
    QTemporaryDir root;
    makeRun(root.path(), "20261128-100000-old", "2026-11-28T10:00:00Z", RunStatus::Finished, metricsWith(20, 20));
    makeRun(root.path(), "20261129-100000-mid", "2026-11-29T10:00:00Z", RunStatus::Failed,
            metricsWith(3000, 5000, 40));  // bigger than the 64 KiB tail
    makeRun(root.path(), "20261130-100000-new", "2026-11-30T10:00:00Z", RunStatus::Running);
    QVERIFY(QDir(root.path()).mkpath("not-a-run"));

    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRunsRoot(root.path());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, RunListModel::IdColumn).data().toString(), QStringLiteral("20261130-100000-new"));
    QCOMPARE(model.index(2, RunListModel::IdColumn).data().toString(), QStringLiteral("20261128-100000-old"));
    QCOMPARE(model.index(1, RunListModel::StatusColumn).data().toString(), QStringLiteral("failed"));
    QCOMPARE(model.index(1, RunListModel::StepColumn).data().toLongLong(), 3000);
    QCOMPARE(model.index(1, RunListModel::TotalStepsColumn).data().toLongLong(), 5000);
    QVERIFY(qAbs(model.index(1, RunListModel::LastLossColumn).data(RunListModel::LastLossRole).toDouble() -
                 10.0 / 3000) < 1e-8);
    QCOMPARE(model.index(2, RunListModel::LastLossColumn).data().toString(), QStringLiteral("0.5000"));
    QCOMPARE(model.index(0, RunListModel::LastLossColumn).data().toString(), QString());
    QCOMPARE(model.index(0, 0).data(RunListModel::NameRole).toString(), QStringLiteral("run 20261130-100000-new"));
    QCOMPARE(model.index(0, 0).data(RunListModel::PathRole).toString(),
             QDir(root.path()).filePath("20261130-100000-new"));

    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);

    // A new run appears: inserted at the top, found by the watcher or the timer.
    makeRun(root.path(), "20261130-120000-newest", "2026-11-30T12:00:00Z", RunStatus::Starting);
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 4, 3000);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 0);
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("20261130-120000-newest"));

    // A status changes (run.json rewritten atomically): that row only.
    changed.clear();
    makeRun(root.path(), "20261130-100000-new", "2026-11-30T10:00:00Z", RunStatus::Stopped);
    QTRY_COMPARE_WITH_TIMEOUT(model.index(1, RunListModel::StatusColumn).data().toString(), QStringLiteral("stopped"),
                              3000);
    QVERIFY(!changed.isEmpty());
    for (const auto& args : changed) QCOMPARE(args.at(0).toModelIndex().row(), 1);

    // Metrics grow: step and loss follow.
    {
      QFile f(QDir(root.path()).filePath("20261130-100000-new/metrics.jsonl"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(metricsWith(4, 100));
    }
    model.rescan();
    QCOMPARE(model.index(1, RunListModel::StepColumn).data().toLongLong(), 4);
    QCOMPARE(model.index(1, RunListModel::TotalStepsColumn).data().toLongLong(), 100);

    // A run is removed.
    QVERIFY(QDir(QDir(root.path()).filePath("20261129-100000-mid")).removeRecursively());
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 3, 3000);
    QCOMPARE(removed.size(), 1);
    QCOMPARE(removed.at(0).at(1).toInt(), 2);
    QCOMPARE(reset.size(), 0);
    QCOMPARE(inserted.size(), 1);
  }

  void aRunWhoseCreatedChangesMoves() {
    QTemporaryDir root;
    makeRun(root.path(), "a", "2026-11-01T00:00:00Z", RunStatus::Finished);
    makeRun(root.path(), "b", "2026-11-02T00:00:00Z", RunStatus::Finished);
    makeRun(root.path(), "c", "", RunStatus::Finished);
    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRunsRoot(root.path());
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("b"));
    QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("c"));
    makeRun(root.path(), "a", "2026-11-03T00:00:00Z", RunStatus::Finished);
    QFile garbage(QDir(root.path()).filePath("c/run.json"));
    QVERIFY(garbage.open(QIODevice::WriteOnly));
    garbage.write(QByteArray("\x00\x01not json", 10));
    garbage.close();
    model.rescan();
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("a"));
    QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("b"));
    QCOMPARE(model.index(2, RunListModel::StatusColumn).data().toString(), QStringLiteral("unknown"));

    // A run.json without a status while a job here drives the run (being replaced, or a mirror's
    // before the remote side wrote one) is "starting", as the header says, and back to what
    // run.json says when the job is gone; each change is that row's status cell only.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setJobActive(QDir(root.path()).filePath("c"), true);
    QCOMPARE(model.index(2, RunListModel::StatusColumn).data().toString(), QStringLiteral("starting"));
    QCOMPARE(model.statusOf(model.runAt(2)), QStringLiteral("starting"));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex(), model.index(2, RunListModel::StatusColumn));
    model.setJobActive(QDir(root.path()).filePath("a"), true);  // run.json has a status: it wins
    QCOMPARE(model.index(0, RunListModel::StatusColumn).data().toString(), QStringLiteral("finished"));
    model.setJobActive(QDir(root.path()).filePath("c"), false);
    QCOMPARE(model.index(2, RunListModel::StatusColumn).data().toString(), QStringLiteral("unknown"));
  }

  void aRemoteRunIsListedFromItsStartAndSaysWhere() {
    // A remote start: its mirror folder exists from the first step, run.json only once the run
    // trains there. It is listed while its job starts it (in its place by the id's time), on
    // the job's host; then by its remote.json; a start that failed before remote.json says its
    // host from run.json.
    QTemporaryDir root;
    makeRun(root.path(), "20261130-100000-local", "2026-11-30T10:00:00Z", RunStatus::Finished);
    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRunsRoot(root.path());
    const QString mirror = QDir(root.path()).filePath("20261130-110000-remote");
    QVERIFY(QDir().mkpath(mirror));
    model.rescan();
    QCOMPARE(model.rowCount(), 1);  // an empty folder no job drives is not a run
    model.setJobActive(mirror, true);
    model.setJobHosts(mirror, {"me@gpu:2222"});
    model.rescan();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.runAt(0).path, mirror);  // newest first, before it has a run.json
    QCOMPARE(model.index(0, RunListModel::StatusColumn).data().toString(), QStringLiteral("starting"));
    QCOMPARE(model.index(0, RunListModel::WhereColumn).data().toString(), QStringLiteral("me@gpu:2222"));
    QCOMPARE(model.index(1, RunListModel::WhereColumn).data().toString(), QStringLiteral("this machine"));
    QCOMPARE(model.whereOf(model.runAt(1)), QString());

    // The job is gone (the app restarted): remote.json keeps it listed and says where.
    QFile record(mirror + "/remote.json");
    QVERIFY(record.open(QIODevice::WriteOnly));
    record.write(R"({"spec":"me@gpu:2222"})");
    record.close();
    model.setJobActive(mirror, false);
    model.setJobHosts(mirror, {});
    model.rescan();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.whereOf(model.runAt(0)), QStringLiteral("me@gpu:2222"));

    // A start that failed at the connection: run.json names its host, no remote.json.
    QVERIFY(QFile::remove(mirror + "/remote.json"));
    RunInfo info;
    info.id = "20261130-110000-remote";
    info.status = RunStatus::Failed;
    info.host = "nobody@127.0.0.1:1";
    QCOMPARE(writeRunInfo(RunPaths{mirror.toStdString()}, info), std::string());
    model.rescan();
    QCOMPARE(model.index(0, RunListModel::StatusColumn).data().toString(), QStringLiteral("failed"));
    QCOMPARE(model.index(0, RunListModel::WhereColumn).data().toString(), QStringLiteral("nobody@127.0.0.1:1"));
    // A long name is whole in its tooltip (the cell elides it).
    QCOMPARE(model.index(1, RunListModel::NameColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("run 20261130-100000-local"));
  }
};

QTEST_GUILESS_MAIN(RunListModelTest)
#include "run_list_model_test.moc"
