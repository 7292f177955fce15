// One rule for "the newest complete checkpoint", kept by three readers: core/runlog (the trainer's
// resume and rotation), the app's mirror (CheckpointSync) and the helper script on a host
// (`checkpoint`). Over the same folders they agree: by step number, not by text (step-9 before
// step-10, unpadded names read), COMPLETE required, and no other name (step-N.tmp-PID, which
// holds COMPLETE before its rename, or step-N.partial). Needs only sh.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "checkpoint_sync.h"
#include "remote_answers.h"
#include "runlog/checkpoint_names.h"

using namespace traindeck;

class CheckpointRuleTest : public QObject {
  Q_OBJECT

  static void make(const QString& run, const QString& name, bool complete) {
    QVERIFY(QDir().mkpath(run + "/checkpoints/" + name));
    QFile weights(run + "/checkpoints/" + name + "/model.safetensors");
    QVERIFY(weights.open(QIODevice::WriteOnly));
    if (complete) {
      QFile mark(run + "/checkpoints/" + name + "/COMPLETE");
      QVERIFY(mark.open(QIODevice::WriteOnly));
    }
  }

  // What the helper on a host names as the newest complete checkpoint ("" when it says none).
  static QString helperSays(const QString& run) {
    QProcess helper;
    helper.start("sh", {TRAINDECK_REMOTE_HELPER, "checkpoint", run});
    if (!helper.waitForFinished(20000)) return "(no answer)";
    for (const QByteArray& line : helper.readAllStandardOutput().split('\n'))
      if (line.startsWith("dir ")) return QString::fromUtf8(line.mid(4));
    return {};
  }

 private slots:
  void theStepDecidesNotTheText() {
    QTemporaryDir run;
    make(run.path(), "step-00000008", true);
    make(run.path(), "step-9", true);
    make(run.path(), "step-10", true);                 // unpadded: after 9 by number, before it by text
    make(run.path(), "step-00000011.tmp-4242", true);  // being written: its COMPLETE is in before the rename
    make(run.path(), "step-00000012.partial", true);   // being copied here
    make(run.path(), "step-00000013", false);          // not complete
    make(run.path(), "step-x14", true);
    const std::vector<std::string> core = completeCheckpoints(run.filePath("checkpoints").toStdString());
    QCOMPARE(core, (std::vector<std::string>{"step-00000008", "step-9", "step-10"}));
    QCOMPARE(CheckpointSync::completeCheckpoints(run.path()), (QStringList{"step-00000008", "step-9", "step-10"}));
    QCOMPARE(CheckpointSync::newestCheckpoint(run.path()), QString("step-10"));
    QCOMPARE(helperSays(run.path()), QString("step-10"));
  }

  void noCompleteCheckpointIsNoneForAll() {
    QTemporaryDir run;
    make(run.path(), "step-00000003", false);
    make(run.path(), "step-00000004.tmp-1", true);
    QCOMPARE(newestCompleteCheckpoint(run.filePath("checkpoints").toStdString()), std::string());
    QCOMPARE(CheckpointSync::newestCheckpoint(run.path()), QString());
    QCOMPARE(helperSays(run.path()), QString());
  }

  void namesAndStepsRoundTrip() {
    QCOMPARE(checkpointName(42), std::string("step-00000042"));
    QCOMPARE(checkpointStep(checkpointName(123456789)), std::int64_t{123456789});
    QCOMPARE(checkpointStep("step-7"), std::int64_t{7});
    for (const char* other : {"step-", "step-1.partial", "step-00000001.tmp-9", "Step-1", "step--1", "step-1 "})
      QVERIFY2(checkpointStep(other) < 0, other);
  }
};

QTEST_GUILESS_MAIN(CheckpointRuleTest)
#include "checkpoint_rule_test.moc"
