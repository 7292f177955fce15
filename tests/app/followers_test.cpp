// MetricsFollower and LogFollower on files written while they run: every record once, a
// partial line held until complete, truncation and replacement seen as a restart (a copy that
// goes on from what was read continues instead), ranks whose logs appear late picked up, and
// batches crossing from a worker thread.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <cstdio>

#include "app_metatypes.h"
#include "log_follower.h"
#include "metrics_follower.h"

using namespace traindeck;

namespace {

void append(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::Append));
  QCOMPARE(f.write(bytes), bytes.size());
}

QByteArray trainLine(int step) {
  return QByteArray("{\"kind\":\"train\",\"time\":") + QByteArray::number(step) +
         ",\"step\":" + QByteArray::number(step) + ",\"loss\":1.5}" + "\n";
}

}  // namespace

class FollowersTest : public QObject {
  Q_OBJECT
 private slots:
  void appendsArriveOnceAndTruncationRestarts() {
    QTemporaryDir dir;
    MetricsFollower follower(dir.path());
    std::vector<MetricsBatch> batches;
    connect(&follower, &MetricsFollower::metricsAvailable, this,
            [&](const SharedMetricsBatch& b) { batches.push_back(*b); });
    follower.start();  // before the file exists
    QTest::qWait(50);
    QVERIFY(batches.empty());
    const QString path = follower.metricsPath();
    int written = 0;
    for (int round = 0; round < 10; ++round) {
      QByteArray chunk;
      for (int i = 0; i < 7; ++i) chunk += trainLine(++written);
      chunk += "{\"kind\":\"train\",\"time\":0,\"st";  // half of the next line...
      append(path, chunk);
      QTest::qWait(30);
      append(path, QByteArray("ep\":") + QByteArray::number(++written) + ",\"loss\":2}" + "\n");  // ...and the rest
    }
    std::vector<std::int64_t> steps;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          steps.clear();
          for (const MetricsBatch& b : batches) steps.insert(steps.end(), b.train.step.begin(), b.train.step.end());
          return steps.size() >= static_cast<std::size_t>(written);
        }(),
        5000);
    QCOMPARE(steps.size(), static_cast<std::size_t>(written));
    for (int i = 0; i < written; ++i) QCOMPARE(steps[static_cast<std::size_t>(i)], i + 1);
    for (const MetricsBatch& b : batches) {
      QVERIFY(!b.empty());
      QVERIFY(!b.restart);
      QCOMPARE(b.garbageLines, 0);
    }

    // Truncate and write a shorter history: a restart batch, then only the new records.
    batches.clear();
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(trainLine(1) + trainLine(2));
    }
    QTRY_VERIFY_WITH_TIMEOUT(!batches.empty(), 5000);
    QVERIFY(batches.front().restart);
    QTRY_COMPARE_WITH_TIMEOUT(batches.back().train.step.empty() ? 0 : batches.back().train.step.back(), 2, 5000);

    // Replaced by rename (another inode) with a copy that goes on from what was read, as a sync
    // tool writes it: no restart, only the new records.
    batches.clear();
    const QString other = dir.filePath("new.jsonl");
    append(other, trainLine(1) + trainLine(2) + trainLine(3) + trainLine(4) + trainLine(5));
    QVERIFY(::rename(other.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(!batches.empty(), 5000);
    QVERIFY(!batches.front().restart);
    QCOMPARE(batches.front().train.step, (std::vector<std::int64_t>{3, 4, 5}));

    // Replaced by another history: a restart again, with all of it.
    batches.clear();
    append(other, trainLine(7) + trainLine(8));
    QVERIFY(::rename(other.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(!batches.empty(), 5000);
    QVERIFY(batches.front().restart);
    QCOMPARE(batches.front().train.step, (std::vector<std::int64_t>{7, 8}));

    // Nothing new: no batch.
    batches.clear();
    QTest::qWait(500);
    QVERIFY(batches.empty());
  }

  void batchesCrossThreads() {
    QTemporaryDir dir;
    QThread worker;
    auto* follower = new MetricsFollower(dir.path());
    follower->moveToThread(&worker);
    connect(&worker, &QThread::finished, follower, &QObject::deleteLater);
    QSignalSpy spy(follower, &MetricsFollower::metricsAvailable);
    std::vector<MetricsBatch> received;  // by a queued connection into this thread
    connect(follower, &MetricsFollower::metricsAvailable, this, [&](const SharedMetricsBatch& b) {
      QCOMPARE(QThread::currentThread(), thread());
      received.push_back(*b);
    });
    worker.start();
    QMetaObject::invokeMethod(follower, &MetricsFollower::start, Qt::QueuedConnection);
    append(dir.filePath("metrics.jsonl"), trainLine(1) + trainLine(2) + "junk\n");
    QTRY_VERIFY_WITH_TIMEOUT(!spy.isEmpty(), 5000);
    const MetricsBatch batch = *spy.takeFirst().at(0).value<SharedMetricsBatch>();
    QCOMPARE(batch.train.size(), std::size_t(2));
    QCOMPARE(batch.garbageLines, 1);
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), std::size_t(1), 5000);
    QCOMPARE(received.front().train.step, batch.train.step);
    worker.quit();
    worker.wait();
  }

  void logsOfAllRanks() {
    QTemporaryDir dir;
    LogFollower follower(dir.path());
    QVector<LogLine> lines;
    connect(&follower, &LogFollower::linesAvailable, this, [&](const QVector<LogLine>& l) { lines += l; });
    follower.start();
    QVERIFY(QDir(dir.path()).mkpath("logs"));
    append(dir.filePath("logs/rank-0.log"),
           "2026-11-30T08:34:49Z info: training 1,234 parameters\n"
           "2026-11-30T08:34:50Z warn: step 17 skipped\n"
           "a plain line from a library\n"
           "2026-11-30T08:34:51Z error: half");
    QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 3, 5000);
    QCOMPARE(lines[0].level, LogLevel::Info);
    QCOMPARE(lines[1].level, LogLevel::Warn);
    QCOMPARE(lines[2].level, LogLevel::Plain);
    QCOMPARE(lines[0].text, QStringLiteral("2026-11-30T08:34:49Z info: training 1,234 parameters"));
    append(dir.filePath("logs/rank-0.log"), " a line\n");
    append(dir.filePath("logs/rank-1.log"), "2026-11-30T08:34:52Z info: rank 1 here\n");
    QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 5, 5000);
    const LogLine& error = lines[3].rank == 0 ? lines[3] : lines[4];
    const LogLine& rank1 = lines[3].rank == 1 ? lines[3] : lines[4];
    QCOMPARE(error.level, LogLevel::Error);
    QCOMPARE(error.text, QStringLiteral("2026-11-30T08:34:51Z error: half a line"));
    QCOMPARE(rank1.rank, 1);
    QCOMPARE(logLevelOf("2026-11-30T08:34:52Z debug: x"), LogLevel::Plain);
    QCOMPARE(logLevelOf("2026-11-30 08:34:52Z info: x"), LogLevel::Plain);
  }

  // A Slurm run's slurm-<id>.out (mirrored home beside the rank logs) comes as the job's output,
  // not as a rank's; a second job's (a continued run) as the next; other names are not followed.
  void theJobsOwnOutputIsFollowedBesideTheRanks() {
    QTemporaryDir dir;
    LogFollower follower(dir.path());
    QVector<LogLine> lines;
    connect(&follower, &LogFollower::linesAvailable, this, [&](const QVector<LogLine>& l) { lines += l; });
    follower.start();
    QVERIFY(QDir(dir.path()).mkpath("logs"));
    append(dir.filePath("logs/rank-0.log"), "2026-11-30T08:34:49Z info: training\n");
    append(dir.filePath("slurm-17.out"), "srun: error: n2: task 1: Exited with exit code 1\n");
    append(dir.filePath("slurm-x.out"), "not a job's\n");
    QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 2, 5000);
    const LogLine& job = lines[0].rank == 0 ? lines[1] : lines[0];
    QVERIFY(isJobOutput(job.rank));
    QCOMPARE(job.text, QStringLiteral("srun: error: n2: task 1: Exited with exit code 1"));
    append(dir.filePath("slurm-21.out"), "a second job\n");
    QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 3, 5000);
    QVERIFY(isJobOutput(lines[2].rank) && lines[2].rank != job.rank);
    QVERIFY(!isJobOutput(lines[0].rank) || !isJobOutput(lines[1].rank));
  }

  // A long history comes as a preview first, then whole in one batch that replaces it; what is
  // appended after comes as usual.
  void aLongHistoryIsPreviewedThenReplacedWhole() {
    QTemporaryDir dir;
    MetricsFollower follower(dir.path());
    const QString path = follower.metricsPath();
    QByteArray history;
    int written = 0;
    while (history.size() < static_cast<qsizetype>(MetricsFollower::kPreviewFromBytes)) {
      for (int i = 0; i < 1000; ++i) history += trainLine(++written);
    }
    // The trainer is writing a line as the history is opened: it is read once its newline comes.
    const QByteArray writing = trainLine(written + 1);
    append(path, history + writing.left(20));
    std::vector<MetricsBatch> batches;
    connect(&follower, &MetricsFollower::metricsAvailable, this,
            [&](const SharedMetricsBatch& b) { batches.push_back(*b); });
    follower.start();
    QTRY_VERIFY_WITH_TIMEOUT(batches.size() >= 2, 10000);
    QVERIFY(!batches[0].restart);
    QVERIFY(batches[0].train.size() > 1000 && batches[0].train.size() <= MetricsFollower::kPreviewSamples + 1);
    QCOMPARE(batches[0].train.step.back(), written);
    QVERIFY(batches[1].restart);
    QCOMPARE(batches[1].train.size(), static_cast<std::size_t>(written));
    QCOMPARE(batches[1].train.step.front(), 1);
    QCOMPARE(batches[1].train.step.back(), written);
    append(path, writing.mid(20));
    QTRY_COMPARE_WITH_TIMEOUT(batches.size(), std::size_t(3), 5000);
    QVERIFY(!batches[2].restart);
    QCOMPARE(batches[2].train.step, std::vector<std::int64_t>{written + 1});
    QCOMPARE(batches[1].garbageLines + batches[2].garbageLines, 0);
  }
};

QTEST_GUILESS_MAIN(FollowersTest)
#include "followers_test.moc"
