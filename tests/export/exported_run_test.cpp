// An exported script's run directory, written for real by the exports' embedded writer
// (resources/exports/run_writer.py under Debian's python3), read by the app's own readers: a
// killed writer's half line is held back, not garbage; and a folder that a sync tool (rclone
// from Google Drive) keeps replacing whole, file by file, is followed without a step twice.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <set>

#include "runlog/metrics_jsonl_parser.h"
#include "runs/run_list_model.h"
#include "runs/run_registry.h"
#include "runs/run_session.h"
#include "runs/run_summary.h"

namespace traindeck {

namespace {

QString python() {
  const QByteArray chosen = qgetenv("PYTHON");
  return chosen.isEmpty() ? QStringLiteral("/usr/bin/python3") : QString::fromLocal8Bit(chosen);
}

QProcess* startWriter(const QString& runDir, int steps, int delayMs, bool die, QObject* parent) {
  auto* writer = new QProcess(parent);
  writer->setProcessChannelMode(QProcess::ForwardedChannels);
  writer->start(python(), {TRAINDECK_EXPORT_TEST_DIR "/write_run.py", TRAINDECK_RUN_WRITER, runDir,
                           QString::number(steps), QString::number(delayMs), die ? "die" : "live"});
  return writer;
}

// A copy of `from`'s files into `to`, each written to a temporary name and renamed over the
// old one: how rclone (and most sync tools) update a file.
void syncWhole(const QString& from, const QString& to) {
  QDir().mkpath(to);
  for (const QString& name :
       {QStringLiteral("config.yaml"), QStringLiteral("metrics.jsonl"), QStringLiteral("run.json")}) {
    QFile source(QDir(from).filePath(name));
    if (!source.open(QIODevice::ReadOnly)) continue;
    const QString temp = QDir(to).filePath("." + name + ".partial");
    QFile out(temp);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) continue;
    out.write(source.readAll());
    out.close();
    ::rename(temp.toLocal8Bit().constData(), QDir(to).filePath(name).toLocal8Bit().constData());
  }
}

}  // namespace

class ExportedRunTest : public QObject {
  Q_OBJECT
 private slots:
  void aKilledExportRunReadsLikeANativeOne() {
    QTemporaryDir root;
    const QString run = root.filePath("20261201-120000-exported-run");
    QProcess* writer = startWriter(run, 60, 0, /*die=*/true, this);
    QVERIFY(writer->waitForFinished(60000));
    QCOMPARE(writer->exitStatus(), QProcess::CrashExit);  // SIGKILLed mid-record

    const RunSummary summary = readRunSummary(run);
    QCOMPARE(summary.name, QStringLiteral("exported run"));
    QVERIFY(summary.hasStatus(RunStatus::Running));  // it never said it ended
    QCOMPARE(summary.step, 60);

    QFile file(QDir(run).filePath("metrics.jsonl"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    MetricsJsonlParser parser;
    const MetricsBatch b = parser.feed(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    QVERIFY(b.hasHeader);
    QCOMPARE(QString::fromStdString(b.header.runId), summary.id);
    QCOMPARE(b.header.totalSteps, 60);
    QCOMPARE(b.header.tokensPerStep, 256);
    QCOMPARE(b.train.size(), std::size_t(60));
    for (std::size_t i = 0; i < b.train.size(); ++i) {
      QCOMPARE(b.train.step[i], static_cast<std::int64_t>(i + 1));
      QVERIFY(std::abs(b.train.loss[i] - 5.0f / std::sqrt(static_cast<float>(i + 1))) < 1e-5f);
    }
    QCOMPARE(b.eval.size(), std::size_t(6));
    QCOMPARE(b.system.size(), std::size_t(2));
    QVERIFY(b.system.front().memUsed > 0);  // the process's own memory, measured
    QCOMPARE(b.garbageLines, 0);
    QVERIFY(parser.pendingBytes() > 0);  // the half record waits for a newline that never comes

    // In the run list beside native runs: its status, step and last loss.
    RunListModel list;
    list.setRunsRoot(root.path());
    QCOMPARE(list.rowCount(), 1);
    QCOMPARE(list.index(0, RunListModel::StepColumn).data().toLongLong(), 60);
    QCOMPARE(list.index(0, RunListModel::StatusColumn).data().toString(), QStringLiteral("running"));
  }

  void aFolderSyncedWholeIsFollowedWithoutDuplicates() {
    QTemporaryDir root;
    const QString source = root.filePath("on-drive"), mirror = root.filePath("synced/20261201-120000-exported-run");
    QProcess* writer = startWriter(source, 300, 10, /*die=*/false, this);
    RunRegistry registry;
    std::shared_ptr<const RunSession> session;
    // The sync tool copies every file whole, over and over, while the app follows the copy.
    while (writer->state() != QProcess::NotRunning) {
      syncWhole(source, mirror);
      if (!session && QFile::exists(QDir(mirror).filePath("run.json")))
        session = registry.session(mirror, RunRegistry::Follow::MetricsOnly);
      QTest::qWait(40);
    }
    QCOMPARE(writer->exitCode(), 0);
    syncWhole(source, mirror);
    QVERIFY(session);
    QTRY_COMPARE_WITH_TIMEOUT(session->metrics().train().size(), std::size_t(300), 10000);
    QTest::qWait(600);  // a few more polls: nothing may arrive twice
    const std::vector<std::int64_t>& steps = session->metrics().train().step;
    QCOMPARE(steps.size(), std::size_t(300));
    for (std::size_t i = 0; i < steps.size(); ++i) QCOMPARE(steps[i], static_cast<std::int64_t>(i + 1));
    QCOMPARE(session->metrics().eval().size(), std::size_t(30));
    QCOMPARE(session->metrics().garbageLines(), 0);
    QTRY_VERIFY(session->summary().hasStatus(RunStatus::Finished));
  }
};

}  // namespace traindeck

QTEST_GUILESS_MAIN(traindeck::ExportedRunTest)
#include "exported_run_test.moc"
