// Slurm's time limit, end to end through a login node (as slurm_run_test.cpp's runs): the job
// checkpoints before the limit, requeues itself, resumes, and at the next limit, with no requeue
// left, ends stopped. Its own test (slurm.time_limit) because it waits two one-minute limits:
// beside slurm.runs rather than after it, each with its own cluster.
#include <QFileInfo>
#include <QTest>

#include "run_status.h"
#include "runlog/run_directory.h"
#include "slurm_login_node.h"

using namespace traindeck;
using traindeck::test::SlurmLoginNode;

namespace {

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class SlurmTimeLimitTest : public QObject {
  Q_OBJECT
  SlurmLoginNode m_login;
  using Launched = SlurmLoginNode::Launched;

 private slots:
  void initTestCase() {
    const QString why = m_login.start(/*maxSteps=*/24, /*checkpointEvery=*/4);
    QVERIFY2(why.isEmpty(), qPrintable(why));
  }

  // A one-minute limit, USR2 a quarter of it before the end (Slurm may send it up to 30 s earlier):
  // every rank checkpoints, the batch script requeues the job (max_requeues 1), it resumes from
  // that checkpoint, and at the next limit, with no requeue left, the run ends stopped at a
  // checkpoint: every step trained once, one "requeued" event.
  void aTimeLimitCheckpointsRequeuesAndEndsAtTheLast() {
    Launched l = m_login.launch({"strategy.nproc_per_node=1", "schedule.max_steps=1000000", "target.time_limit=1",
                                 "target.max_requeues=1", "name=time-limited job"});
    QVERIFY2(!l.runDir.isEmpty(), "the launcher printed no mirror");
    QString err;
    const int code = SlurmLoginNode::finish(l, 480000, &err);
    if (code != 0) qWarning().noquote() << err.right(4000) << "\n" << m_login.cluster().logs().right(2000);
    QCOMPARE(code, 0);
    QCOMPARE(test_support::runStatus(l.runDir), std::string("stopped"));
    const RunInfoReadResult read = readRunInfo(RunPaths{l.runDir.toStdString()});
    QVERIFY2(QString::fromStdString(read.info.exitReason).contains("no requeue is left"), read.info.exitReason.c_str());
    const QString metrics = readText(l.runDir + "/metrics.jsonl");
    QCOMPARE(metrics.count("requeued by Slurm"), 1);
    // Every step from the first to the last, the resumed window going on from its checkpoint.
    const QList<qint64> steps = test_support::trainLosses(l.runDir + "/metrics.jsonl").keys();
    QVERIFY(steps.size() >= 2);
    QCOMPARE(steps.first(), qint64{1});
    QCOMPARE(steps.last(), steps.first() + static_cast<qint64>(steps.size()) - 1);
    QCOMPARE(static_cast<qint64>(read.info.step), steps.last());
    QVERIFY(QFileInfo::exists(m_login.remoteRunDir(l.runDir) +
                              QStringLiteral("/checkpoints/step-%1/COMPLETE").arg(steps.last(), 8, 10, QChar('0'))));
  }
};

QTEST_GUILESS_MAIN(SlurmTimeLimitTest)
#include "slurm_time_limit_test.moc"
