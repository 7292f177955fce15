// A remote run whose runtime goes while this app is not watching it, against the test sshd and
// a stand-in trainer started there by the helper's launch: `traindeck --attach RUN --gone-after
// 3` honours the limit (an attached job used to get none of the options a start gets), and
// Continue on another host asks the host the run was on first: alive, it is refused and the
// mirror is left alone; gone (no work folder, no supervisor, unreachable), the mirror says
// "Runtime gone" and the run continues on the other host. A helper of an older app, without
// `stream`, is read by polls (and today's is not).
#include <signal.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "job_controller.h"
#include "remote_answers.h"
#include "remote_job.h"
#include "remote_record.h"
#include "run_status.h"
#include "runs/run_summary.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::SshdServer;

class RuntimeGoneTest : public QObject {
  Q_OBJECT
  SshdServer m_server;
  QTemporaryDir m_remote;  // the host's side
  QTemporaryDir m_local;   // the runs root, known_hosts, the proxy's pid file
  QString m_block;         // while this file exists the proxy refuses: the host is unreachable
  QString m_knownHosts;

  QString work() const { return m_remote.filePath("work"); }

  // A stand-in run started there as the app's launch does it, and its mirror here.
  QString startRunThere(const QString& id, qint64* pid) {
    QDir().mkpath(work());
    QFile::remove(work() + "/helper.sh");
    QFile::remove(work() + "/fake-train");
    if (!QFile::copy(TRAINDECK_REMOTE_HELPER, work() + "/helper.sh") ||
        !QFile::copy(TRAINDECK_STAND_IN_TRAINER, work() + "/fake-train"))
      return {};
    QFile(work() + "/fake-train").setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QProcess launch;
    launch.start(
        "sh", {work() + "/helper.sh", "launch", work() + "/fake-train", work() + "/job.yaml", work() + "/runs/" + id});
    if (!launch.waitForFinished(20000)) return {};
    const QMap<QString, QString> started = parseKeyValues(launch.readAllStandardOutput());
    *pid = started.value("pid").toLongLong();
    SshTarget target = SshTarget::parse(m_server.spec());
    target.identityFiles << m_server.clientKey();
    target.knownHostsFile = m_knownHosts;
    target.proxyCommand = gatedProxy();
    RemoteRecord record;
    record.ssh = target;
    record.workDir = work();
    record.helper = work() + "/helper.sh";
    record.remoteRunDir = work() + "/runs/" + id;
    record.trainBinary = work() + "/fake-train";
    record.pid = *pid;
    record.startTime = started.value("start_time");
    record.bootId = started.value("boot_id");
    const QString mirror = m_local.filePath("runs/" + id);
    QDir().mkpath(mirror + "/checkpoints/step-00000005");
    QFile(mirror + "/checkpoints/step-00000005/COMPLETE").open(QIODevice::WriteOnly);
    QFile config(mirror + "/config.yaml");
    if (!config.open(QIODevice::WriteOnly) || config.write("name: remote-fake\n") < 0) return {};
    if (!writeRemoteRecord(mirror, record).isEmpty()) return {};
    // What a follower copied before nobody followed any more: the run said running.
    QFile json(mirror + "/run.json");
    json.open(QIODevice::WriteOnly);
    json.write(R"({"id":")" + id.toUtf8() + R"(","name":"remote-fake","status":"running","host":"there"})");
    return *pid > 0 ? mirror : QString();
  }

  QString gatedProxy() const {
    return QStringLiteral("test -e %1 && exit 1; %2")
        .arg(m_block, m_server.proxyCommand(m_local.filePath("proxy.pid")));
  }

  void unreachable() {
    QFile(m_block).open(QIODevice::WriteOnly);
    ::kill(static_cast<pid_t>(SshdServer::readPid(m_local.filePath("proxy.pid"))), SIGKILL);
  }

  JobController::RemoteOptions options() const {
    JobController::RemoteOptions o;
    o.payloadDir = TRAINDECK_REMOTE_PAYLOAD;
    o.knownHostsFile = m_knownHosts;
    o.workDir = m_remote.filePath("work-b");
    o.batch = true;
    return o;
  }

  TargetConfig otherHost() const {
    TargetConfig b;
    b.kind = TargetKind::Ssh;
    b.host = m_server.spec().toStdString();
    b.identity = m_server.clientKey().toStdString();
    b.proxy_command = m_server.proxyCommand(m_local.filePath("proxy-b.pid")).toStdString();
    return b;
  }

  // Continue on the other host; the job's state and what it said, once it has moved past asking.
  RemoteJob* continueRun(JobController& jobs, const QString& mirror) {
    const JobController::Started started = jobs.continueOn(mirror, otherHost());
    if (!started.error.isEmpty()) qWarning() << started.error;
    return started.error.isEmpty() ? qobject_cast<RemoteJob*>(jobs.jobFor(mirror)) : nullptr;
  }

  // The helper's own answer (a zombie where nothing reaps orphans is not alive to it).
  bool aliveThere(const QString& mirror) const {
    RemoteRecord record;
    if (!readRemoteRecord(mirror, &record)) return false;
    QProcess p;
    p.start("sh", {record.helper, "alive", QString::number(record.pid), record.startTime});
    return p.waitForFinished(10000) && parseKeyValues(p.readAllStandardOutput()).value("alive") == "yes";
  }

  static bool hasStep(RemoteJob* job, const QString& name) {
    for (const BootstrapStep& step : job->steps())
      if (step.name == name) return true;
    return false;
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QFAIL(qPrintable("install " + missing + " to run the SSH tests"));
    qunsetenv("SSH_AUTH_SOCK");
    QCOMPARE(m_server.start(), QString());
    m_knownHosts = m_local.filePath("known_hosts");
    QVERIFY(m_server.writeKnownHosts(m_knownHosts));
    m_block = m_local.filePath("unreachable");
  }

  void cleanup() { QFile::remove(m_block); }

  void anAttachedRunHonoursGoneAfter() {
    qint64 pid = 0;
    const QString mirror = startRunThere("20261203-100000-attached", &pid);
    QVERIFY(!mirror.isEmpty());
    QProcess attach;
    attach.start(TRAINDECK_BIN, {"--attach", mirror, "--gone-after", "3", "--keep-checkpoints", "1", "--batch"});
    QVERIFY(attach.waitForStarted(5000));
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(mirror + "/metrics.jsonl").size() > 0, 60000);  // following
    unreachable();
    const bool ended = attach.waitForFinished(90000);
    const QString err = QString::fromUtf8(attach.readAllStandardError());
    ::kill(-static_cast<pid_t>(pid), SIGKILL);
    QVERIFY2(ended, "the runtime was never said to be gone");
    QCOMPARE(attach.exitCode(), 1);
    QVERIFY2(err.contains("Runtime gone") && err.contains("unreachable for 3 s"), qPrintable(err));
    QCOMPARE(test_support::runStatus(mirror), std::string("failed"));
  }

  void anOlderHelperWithoutStreamIsReadByPolls() {
    // A run launched by an app whose helper has no `stream`: the follower says so once and reads
    // the run every 500 ms instead; the mirror still follows it.
    qint64 pid = 0;
    const QString mirror = startRunThere("20261203-100050-old-helper", &pid);
    QVERIFY(!mirror.isEmpty());
    {  // today's helper streams: nothing said of polls
      RemoteJob streamed;
      QCOMPARE(streamed.attach(mirror, true), QString());
      QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(mirror + "/metrics.jsonl").size() > 0, 30000);
      QTest::qWait(1500);  // a stream that failed would have said so by now
      QVERIFY2(!streamed.recentOutput().join('\n').contains("instead"), qPrintable(streamed.recentOutput().join('\n')));
    }
    QFile helper(work() + "/helper.sh");
    QVERIFY(helper.open(QIODevice::ReadWrite));
    QByteArray text = helper.readAll();
    QVERIFY(text.contains("\n  stream)\n"));
    text.replace("\n  stream)\n", "\n  stream-not-known-then)\n");
    QVERIFY(helper.resize(0) && helper.seek(0) && helper.write(text) == text.size());
    helper.close();
    RemoteJob job;
    QCOMPARE(job.attach(mirror, true), QString());
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(mirror + "/metrics.jsonl").size() > 0, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(job.recentOutput().join('\n').contains("reading them every 500 ms instead"), 10000);
    const qint64 before = QFileInfo(mirror + "/metrics.jsonl").size();
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(mirror + "/metrics.jsonl").size() > before, 30000);  // still followed
    ::kill(-static_cast<pid_t>(pid), SIGKILL);
  }

  void continueRefusesARunThatStillGoesThere() {
    qint64 pid = 0;
    const QString mirror = startRunThere("20261203-100100-alive", &pid);
    QVERIFY(!mirror.isEmpty());
    JobController jobs(m_local.filePath("runs"), {});
    jobs.setRemoteOptions(options());
    RemoteJob* job = continueRun(jobs, mirror);
    QVERIFY(job);
    QSignalSpy refused(job, &Job::failedToStart);
    QTRY_COMPARE_WITH_TIMEOUT(job->state(), Job::State::Finished, 20000);
    ::kill(-static_cast<pid_t>(pid), SIGKILL);
    QCOMPARE(refused.size(), 1);
    const QString why = refused.at(0).at(0).toString();
    QVERIFY2(why.contains("still running on") && why.contains("traindeck --stop " + mirror), qPrintable(why));
    QCOMPARE(test_support::runStatus(mirror), std::string("running"));  // left as it was
    QVERIFY(!hasStep(job, "connect"));                                  // the other host was never touched
  }

  void continueMarksAGoneRuntimeAndGoesOn_data() {
    QTest::addColumn<QString>("how");
    QTest::addColumn<QString>("said");
    QTest::newRow("work folder wiped") << "wiped"
                                       << "is not on";
    QTest::newRow("supervisor killed") << "killed"
                                       << "is not running on";
    QTest::newRow("host unreachable") << "unreachable"
                                      << "cannot be reached";
  }
  void continueMarksAGoneRuntimeAndGoesOn() {
    QFETCH(QString, how);
    QFETCH(QString, said);
    qint64 pid = 0;
    const QString mirror = startRunThere("20261203-1002-" + how, &pid);
    QVERIFY(!mirror.isEmpty());
    ::kill(-static_cast<pid_t>(pid), SIGKILL);
    QTRY_VERIFY(!aliveThere(mirror));
    if (how == "wiped") QVERIFY(QDir(work()).removeRecursively());
    if (how == "unreachable") unreachable();
    JobController jobs(m_local.filePath("runs"), {});
    jobs.setRemoteOptions(options());
    RemoteJob* job = continueRun(jobs, mirror);
    QVERIFY(job);
    QTRY_VERIFY_WITH_TIMEOUT(readRunSummary(mirror).exitReason.startsWith("Runtime gone"), 20000);
    QCOMPARE(test_support::runStatus(mirror), std::string("failed"));
    QVERIFY2(readRunSummary(mirror).exitReason.contains(said), qPrintable(readRunSummary(mirror).exitReason));
    QFile::remove(m_block);                                    // the other host is this sshd through its own proxy
    QTRY_VERIFY_WITH_TIMEOUT(hasStep(job, "connect"), 10000);  // continuing there
    QCOMPARE(job->state(), Job::State::Starting);
    job->kill();  // cancelled: nothing is built for this test
    QTRY_COMPARE_WITH_TIMEOUT(job->state(), Job::State::Finished, 20000);
  }
};

QTEST_GUILESS_MAIN(RuntimeGoneTest)
#include "runtime_gone_test.moc"
