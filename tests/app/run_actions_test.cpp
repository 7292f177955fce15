// What can be done to a run (runActions), the one rule behind the run menu and Stop and Kill: a
// live run driven here can be stopped unless it is not ours (watched); an ended one with a
// complete checkpoint here can be continued (a remote one asks where), renamed and trashed; a
// run that says it is going but that no job here drives can be neither stopped nor removed; a
// killed run is an ended one.
#include <QTest>

#include "job.h"
#include "run_actions.h"

using namespace traindeck;

namespace {

// A job in a given state, as the window sees any kind: only what the Job interface says.
class JobInState : public Job {
 public:
  explicit JobInState(State state, QString refusal = {}) : m_state(state), m_refusal(std::move(refusal)) {}
  State state() const override { return m_state; }
  QString runDir() const override { return "/runs/r"; }
  void stop() override {}
  void kill() override {}
  QStringList recentOutput() override { return {}; }
  QString stopRefusal() const override { return m_refusal; }

 private:
  State m_state;
  QString m_refusal;
};

}  // namespace

class RunActionsTest : public QObject {
  Q_OBJECT
 private slots:
  void aRunGoingHereCanBeStoppedAndNothingElse() {
    const JobInState running(Job::State::Running);
    const RunActions a =
        runActions({.status = RunStatus::Running, .remote = false, .hasCheckpoint = true, .job = &running});
    QVERIFY(a.stop && a.kill && a.whyNoStop.isEmpty());
    QVERIFY(!a.continueRun && !a.rename && !a.trash);
    QVERIFY(!a.whyNoContinue.isEmpty());
    const JobInState stopping(Job::State::Stopping);
    const RunActions s =
        runActions({.status = RunStatus::Running, .remote = false, .hasCheckpoint = true, .job = &stopping});
    QVERIFY(!s.stop && s.kill);  // asked once; Kill still ends it
  }

  void anotherToolsRunIsOnlyRead() {
    // A TensorBoard or MLflow run (no run.json: status unknown, so it would pass for ended).
    const RunActions a = runActions({.status = std::nullopt, .hasCheckpoint = true, .imported = true});
    QVERIFY(!a.stop && !a.kill && !a.continueRun && !a.rename && !a.trash && !a.fetch);
    QVERIFY(a.whyNoContinue.contains("Another tool's run"));
    const RunActions own = runActions({.status = std::nullopt, .hasCheckpoint = true});
    QVERIFY(own.rename && own.trash && own.continueRun);  // the same facts of a run of ours
  }

  void aWatchedRunIsNotOursToStop() {
    const JobInState watched(Job::State::Running, "started outside TrainDeck: stop it there");
    const RunActions a =
        runActions({.status = RunStatus::Running, .remote = true, .hasCheckpoint = false, .job = &watched});
    QVERIFY(!a.stop && !a.kill);
    QCOMPARE(a.whyNoStop, QString("started outside TrainDeck: stop it there"));
    QVERIFY(a.fetch);
  }

  void anEndedRunCanBeContinuedRenamedAndTrashed_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("remote");
    for (const RunStatus s : {RunStatus::Finished, RunStatus::Stopped, RunStatus::Failed, RunStatus::Killed}) {
      QTest::newRow(toString(s)) << static_cast<int>(s) << false;
      QTest::newRow((std::string(toString(s)) + " remote").c_str()) << static_cast<int>(s) << true;
    }
  }
  void anEndedRunCanBeContinuedRenamedAndTrashed() {
    QFETCH(int, status);
    QFETCH(bool, remote);
    const JobInState ended(Job::State::Finished);
    for (const Job* job : {static_cast<const Job*>(nullptr), static_cast<const Job*>(&ended)}) {
      const RunActions a =
          runActions({.status = static_cast<RunStatus>(status), .remote = remote, .hasCheckpoint = true, .job = job});
      QVERIFY(!a.stop && !a.kill && !a.whyNoStop.isEmpty());
      QVERIFY(a.continueRun && a.rename && a.trash);
      QCOMPARE(a.continueAsksWhere, remote);
      QCOMPARE(a.fetch, remote);
    }
    const RunActions none = runActions(
        {.status = static_cast<RunStatus>(status), .remote = remote, .hasCheckpoint = false, .job = nullptr});
    QVERIFY(!none.continueRun && none.whyNoContinue.contains("checkpoint"));
    QVERIFY(none.rename && none.trash);
  }

  void aRunThatSaysItGoesButThatNoJobDrivesIsLeftAlone() {
    // Another machine's run, or one started by the command line: nothing here to stop, and its
    // folder is still written by someone.
    const RunActions a =
        runActions({.status = RunStatus::Running, .remote = false, .hasCheckpoint = true, .job = nullptr});
    QVERIFY(!a.stop && !a.kill && a.whyNoStop.contains("elsewhere"));
    QVERIFY(!a.continueRun && !a.rename && !a.trash);
  }
};

QTEST_GUILESS_MAIN(RunActionsTest)
#include "run_actions_test.moc"
