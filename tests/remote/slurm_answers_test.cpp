// A Slurm run's answers without a cluster: the helper's `queue` lines read into job states, the
// pending reasons said in words, which states still live and which reasons never pass, sbatch's
// answer (with and without a cluster name), and remote.json keeping the job id.
#include <QTemporaryDir>
#include <QTest>

#include "remote_helper_answers.h"
#include "remote_record.h"
#include "slurm_job_state.h"

using namespace traindeck;

namespace {
RemoteHost::ExecResult answer(int status, const QByteArray& out) {
  RemoteHost::ExecResult r;
  r.status = status;
  r.out = out;
  return r;
}
}  // namespace

class SlurmAnswersTest : public QObject {
  Q_OBJECT
 private slots:
  void queueLinesBecomeJobStates() {
    const QueueAnswer a = QueueAnswer::from(answer(0,
                                                   "job 41|COMPLETED|None|n1|2026-12-03T10:00:00\n"
                                                   "job 42|PENDING|Resources|||2026-12-03T10:42:00\n"
                                                   "job 43_7|RUNNING|None|n[1-2]|2026-12-03T09:00:00\n"
                                                   "squeue: warning: something\n"
                                                   "queue=ok\n"));
    QVERIFY(a.complete);
    QCOMPARE(a.jobs.size(), 3);
    QCOMPARE(a.jobs.value("42").state, QString("PENDING"));
    QCOMPARE(a.jobs.value("42").reason, QString("Resources"));
    QCOMPARE(a.jobs.value("43_7").nodes, QString("n[1-2]"));
    QVERIFY(a.jobs.value("43_7").active());
    QVERIFY(!a.jobs.value("41").active());
    // Without queue=ok the answer is not complete (squeue failed, or the link went), and has no jobs.
    const QueueAnswer cut = QueueAnswer::from(answer(1, "error=squeue failed: slurm_load_jobs error\n"));
    QVERIFY(!cut.complete);
    QVERIFY(cut.jobs.isEmpty());
  }

  void statesAreSaidInWords() {
    SlurmJobState job;
    job.id = "42";
    job.state = "PENDING";
    job.reason = "Resources";
    job.start = QDateTime::fromString("2026-12-03T10:42:00", Qt::ISODate);
    QCOMPARE(job.describe(), QString("pending: waiting for resources (expected to start at 10:42)"));
    job.reason = "QOSMaxGRESPerUser";
    QCOMPARE(job.describe(), QString("pending: your QOS allows no more GPUs now"));
    job.reason = "BeginTime";
    QCOMPARE(job.describe(/*requeued=*/true), QString("requeued, eligible at 10:42"));
    job.state = "RUNNING";
    job.nodes = "gpu[017-018]";
    QCOMPARE(job.describe(), QString("running on gpu[017-018]"));
    job.state = "CANCELLED";
    QCOMPARE(job.describe(), QString("cancelled"));
    QCOMPARE(slurmReasonInWords("SomethingNew"), QString("SomethingNew"));  // no words: Slurm's own
    // A sweep's job array task held back by its throttle (%N), as squeue -r says it.
    job.id = "42_3";
    job.state = "PENDING";
    job.reason = "JobArrayTaskLimit";
    QCOMPARE(job.describe(), QString("pending: waiting for its turn in its job array"));
    QVERIFY(!job.neverRuns());
    // A job waiting for drained nodes: squeue's reason names them after a comma.
    job.state = "PENDING";
    job.reason = "ReqNodeNotAvail, UnavailableNodes:n[1-2]";
    QCOMPARE(job.describe(), QString("pending: the nodes it needs are not available (drained, down or reserved: n[1-2])"));
    QVERIFY(!job.neverRuns());
  }

  void onlyReasonsThatNeverPassAreNeverRuns() {
    SlurmJobState job;
    job.state = "PENDING";
    for (const char* reason : {"PartitionConfig", "PartitionNodeLimit", "PartitionTimeLimit", "BadConstraints"}) {
      job.reason = reason;
      QVERIFY2(job.neverRuns(), reason);
    }
    for (const char* reason : {"Resources", "Priority", "BeginTime", "QOSMaxGRESPerUser", "ReqNodeNotAvail"}) {
      job.reason = reason;
      QVERIFY2(!job.neverRuns(), reason);
    }
    job.state = "RUNNING";
    job.reason = "PartitionConfig";
    QVERIFY(!job.neverRuns());
  }

  void sbatchAnswersAJobId() {
    QCOMPARE(SubmitAnswer::from(answer(0, "job=1234\n")).jobId, QString("1234"));
    QVERIFY(SubmitAnswer::from(answer(0, "job=1234\n")).submitted());
    const SubmitAnswer refused = SubmitAnswer::from(answer(1, "error=sbatch refused the job: invalid partition\n"));
    QVERIFY(!refused.submitted());
    QVERIFY(refused.why().contains("invalid partition"));
  }

  void remoteJsonKeepsTheJobId() {
    QTemporaryDir dir;
    RemoteRecord record;
    record.ssh.spec = "me@login";
    record.remoteRunDir = "/shared/runs/r";
    record.slurmJobId = "1234";
    QCOMPARE(writeRemoteRecord(dir.path(), record), QString());
    RemoteRecord read;
    QVERIFY(readRemoteRecord(dir.path(), &read));
    QCOMPARE(read.slurmJobId, QString("1234"));
    record.slurmJobId.clear();  // an SSH run's record has no key for it
    QCOMPARE(writeRemoteRecord(dir.path(), record), QString());
    QVERIFY(readRemoteRecord(dir.path(), &read));
    QVERIFY(read.slurmJobId.isEmpty());
  }
};

QTEST_GUILESS_MAIN(SlurmAnswersTest)
#include "slurm_answers_test.moc"
