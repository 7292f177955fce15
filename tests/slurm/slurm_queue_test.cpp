// SlurmQueue over real connections to the test's login node (SlurmLoginNode): when a followed
// Slurm run ends, its job's connection goes (RemoteJob::releaseHost), and with it the answer of a
// queue poll that was on its way over it. That poll must not hold the queue for ever: a job
// followed after it gets its state within a poll interval. (It held it: no squeue ran again in
// that app session, and later Slurm runs never showed their queue state.)
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <memory>

#include "remote_host.h"
#include "slurm_login_node.h"
#include "slurm_queue.h"

using namespace traindeck;
using traindeck::test::SlurmLoginNode;

class SlurmQueueTest : public QObject {
  Q_OBJECT
  SlurmLoginNode m_login;

  // A ready connection to the login node, as a remote job makes one.
  std::unique_ptr<RemoteHost> connectToLogin() {
    SshTarget target = SshTarget::parse(m_login.server().spec());
    target.identityFiles << m_login.server().clientKey();
    target.knownHostsFile = m_login.knownHosts();
    target.batch = true;
    target.loginShell = QStringLiteral("bash -l");  // the cluster's set-up is in the login profile
    auto host = std::make_unique<RemoteHost>(target);
    host->connectToHost();
    return host;
  }
  static QString helper() { return QStringLiteral(TRAINDECK_REMOTE_PAYLOAD) + "/traindeck-remote.sh"; }
  QString submitSleeper() {
    bool ok = false;
    const QString id =
        m_login.cluster().run("sbatch", {"--parsable", "--output=/dev/null", "--wrap", "sleep 300"}, &ok).trimmed();
    return ok ? id : QString();
  }

 private slots:
  void initTestCase() {
    const QString why = m_login.start(/*maxSteps=*/4, /*checkpointEvery=*/2);
    QVERIFY2(why.isEmpty(), qPrintable(why));
  }

  void aJobFollowedAfterAnotherEndedGetsItsState() {
    const QString first = submitSleeper(), second = submitSleeper();
    QVERIFY2(!first.isEmpty() && !second.isEmpty(), qPrintable(m_login.cluster().lastError()));
    const auto cancel = qScopeGuard([&] { m_login.cluster().run("scancel", {first, second}); });
    SlurmQueue queue;
    QSignalSpy updates(&queue, &SlurmQueue::updated);
    auto firstHost = connectToLogin();
    QTRY_VERIFY_WITH_TIMEOUT(firstHost->isReady(), 30000);
    queue.follow(first, firstHost.get(), helper());  // a new job: asked at once, the answer on its way
    QCOMPARE(queue.pollsMade(), 1);
    // The first run ends before the answer is back: unfollowed, its connection gone with its answers.
    queue.unfollow(first);
    firstHost->forgetCallbacks();
    firstHost.reset();
    auto secondHost = connectToLogin();
    QTRY_VERIFY_WITH_TIMEOUT(secondHost->isReady(), 30000);
    queue.follow(second, secondHost.get(), helper());
    const auto hasSecond = [&] {
      for (const QList<QVariant>& update : std::as_const(updates))
        if (update.value(0).value<QMap<QString, SlurmJobState>>().contains(second)) return true;
      return false;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(
        hasSecond(), qPrintable(QString("%1 polls made, %2 answered").arg(queue.pollsMade()).arg(updates.size())),
        SlurmQueue::kPollMs + 20000);
    QVERIFY(queue.pollsMade() >= 2);
  }
};

QTEST_GUILESS_MAIN(SlurmQueueTest)
#include "slurm_queue_test.moc"
