// SweepRunner end to end with the real trainer on tiny CPU jobs (docs/sweeps.md): a grid on two
// local slots runs each trial once and each as it runs alone; ASHA over three rungs prunes the
// trials its rule says (ranked by the learning rate, a metric whose order is known before the
// run) and a promoted trial's losses equal an unpruned run's step for step; a trial whose rank
// is killed runs once more from its checkpoint; a runner that goes away mid-sweep leaves a
// sweep.json the next one carries on from, nothing run twice. Slow; needs LibTorch.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <map>
#include <set>

#include "job_controller.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/run_directory.h"
#include "sweep/sweep_state_file.h"
#include "sweep_folder.h"
#include "sweep_runner.h"
#include "tiny_job.h"

using namespace traindeck;
using test_support::makeTinyJob;

namespace {

constexpr int kSweepMs = 240000;

// step -> train loss, the newest record of each step (a resumed run writes its steps again).
std::map<std::int64_t, float> lossesOf(const QString& runDir) {
  QFile file(QDir(runDir).filePath("metrics.jsonl"));
  if (!file.open(QIODevice::ReadOnly)) return {};
  const QByteArray bytes = file.readAll();
  const MetricsBatch batch = MetricsJsonlParser().feed(std::string_view(bytes.constData(), bytes.size()));
  std::map<std::int64_t, float> out;
  for (std::size_t i = 0; i < batch.train.size(); ++i) out[batch.train.step[i]] = batch.train.loss[i];
  return out;
}

// `traindeck-train run` of the job alone, with these settings, on `threads` threads.
QString runAlone(const QString& dir, const QString& name, const QStringList& sets, const QString& threads) {
  const QString runDir = QDir(dir).filePath(name);
  QProcess run;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("OMP_NUM_THREADS", threads);
  run.setProcessEnvironment(env);
  run.setProcessChannelMode(QProcess::MergedChannels);
  QStringList args{"run", "--config", QDir(dir).filePath("job.yaml"), "--run-dir", runDir, "--no-progress"};
  for (const QString& set : sets) args << "--set" << set;
  run.start(QStringLiteral(TRAINDECK_TRAIN_BIN), args);
  if (!run.waitForFinished(120000) || run.exitCode() != 0) return {};
  return runDir;
}

}  // namespace

// Outside the anonymous namespace: the tests' lambdas capture it.
struct Sweep {
  QTemporaryDir dir;
  QString jobDir;
  QString runsRoot;
  QString sweepFile;
  QString sweepDir;
  std::unique_ptr<JobController> jobs;
  std::unique_ptr<SweepRunner> runner;
  QStringList lines;

  // The job, its sweep file `sweepName` and the runs root in `folder` under the temporary dir.
  bool make(const QByteArray& sweepYaml, int maxSteps, const QString& folder = {},
            const QString& sweepName = "sweep.yaml") {
    qputenv("MAX_STEPS", QByteArray::number(maxSteps));
    qputenv("CHECKPOINT_EVERY", "0");
    const QString root = folder.isEmpty() ? dir.path() : dir.filePath(folder);
    if (!QDir().mkpath(root) || !makeTinyJob(root)) return false;
    jobDir = root;
    runsRoot = QDir(root).filePath("runs");
    sweepFile = QDir(root).filePath(sweepName);
    QFile f(sweepFile);
    if (!f.open(QIODevice::WriteOnly)) return false;
    f.write(sweepYaml);
    f.close();
    QString error;
    sweepDir = sweepFolderFor(runsRoot, sweepFile, &error);
    return !sweepDir.isEmpty();
  }
  // A new runner (as a new app would make) on the sweep, `slotCount` trials at once here (0: as
  // sweep.json says); empty, or why it did not begin.
  QString begin(int slotCount, int pack = 1) {
    runner.reset();
    jobs = std::make_unique<JobController>(runsRoot, QStringLiteral(TRAINDECK_TRAIN_BIN));
    runner = std::make_unique<SweepRunner>(*jobs);
    QObject::connect(runner.get(), &SweepRunner::trialChanged,
                     [this](const QString&, const QString& line) { lines << line; });
    if (slotCount == 0) return runner->begin(sweepFile, sweepDir);
    return runner->begin(sweepFile, sweepDir, {{"here", std::nullopt, slotCount, pack}});
  }
  bool waitDone() {
    if (runner->isDone()) return true;
    QSignalSpy finished(runner.get(), &SweepRunner::finished);
    return finished.wait(kSweepMs);
  }
  SweepState saved() const { return readSweepState(SweepFolder{sweepDir}.statePath().toStdString()).state; }
  QString runOf(const TrialRecord& t) const {
    return SweepFolder{sweepDir}.runDir(QString::fromStdString(t.runFolder));
  }
  // The run folders under the runs root (the sweeps folder aside).
  QStringList runFolders() const {
    QStringList out = QDir(runsRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    out.removeAll(kSweepsFolder);
    return out;
  }
};

namespace {

const TrialRecord* byName(const SweepState& state, const std::string& name) {
  for (const TrialRecord& t : state.trials)
    if (t.params.name == name) return &t;
  return nullptr;
}

}  // namespace

class SweepRunnerTest : public QObject {
  Q_OBJECT
 private slots:
  // Packing trials into jobs is for a Slurm cluster: asked of this machine, it is said and not
  // done (each trial at its slot, as without it), and sweep.json keeps what was asked, so that
  // a runner taking the sweep up again runs it the same way.
  void aPackAskedOfThisMachineIsSaidAndTheTrialsRunAtTheirSlots() {
    Sweep s;
    QVERIFY(s.make("base: job.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, 2e-3]\nmetric: loss\n", 4));
    QCOMPARE(s.begin(1, 2), QString());
    QVERIFY2(s.lines.join('\n').contains("Trials are not packed 2 to a job: packing is for a sweep whose one place is "
                                         "a Slurm cluster"),
             qPrintable(s.lines.join('\n')));
    QVERIFY(s.waitDone());
    for (const TrialRecord& t : s.saved().trials) QCOMPARE(t.state, TrialState::Finished);
    QCOMPARE(s.saved().places.size(), std::size_t{1});
    QCOMPARE(s.saved().places.front().pack, 2);
  }

  void gridOnTwoSlotsRunsEachTrialOnceAsItRunsAlone() {
    Sweep s;
    QVERIFY(
        s.make("base: job.yaml\n"
               "method: grid\n"
               "parameters:\n"
               "  optimizer.lr: [1e-3, 3e-3]\n"
               "  model.n_embd: [32, 48]\n"
               "repeats: {seeds: [1, 2]}\n"
               "metric: loss\n",
               8));
    QCOMPARE(s.begin(2), QString());
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    const SweepState state = s.saved();
    QCOMPARE(state.trials.size(), std::size_t(8));
    std::set<std::string> runs;
    for (const TrialRecord& t : state.trials) {
      QVERIFY2(t.state == TrialState::Finished, t.params.name.c_str());
      QVERIFY(t.metric && std::isfinite(*t.metric));
      QCOMPARE(t.retries, 0);
      runs.insert(t.runFolder);
    }
    QCOMPARE(runs.size(), std::size_t(8));          // each in its own run
    QCOMPARE(s.runFolders().size(), qsizetype(8));  // and nothing else started
    // Two slots on this machine's cores: each trial had half of them.
    const QString threads = QString::number(std::max(1, QThread::idealThreadCount() / 2));
    for (const char* name : {"lr=1e-3 n_embd=32 s1", "lr=3e-3 n_embd=48 s2"}) {
      const TrialRecord* trial = byName(state, name);
      QVERIFY2(trial, name);
      QStringList sets;
      for (const ParamSetting& setting : trial->params.settings)
        sets << QString::fromStdString(setting.key + "=" + paramValueYaml(setting.value));
      sets << "seed=" + QString::number(*trial->params.seed);
      const QString alone = runAlone(s.jobDir, QString("alone-%1").arg(trial->params.id.c_str()), sets, threads);
      QVERIFY(!alone.isEmpty());
      const auto expected = lossesOf(alone), got = lossesOf(s.runOf(*trial));
      QCOMPARE(got.size(), std::size_t(8));
      for (const auto& [step, loss] : expected) QVERIFY2(std::abs(got.at(step) - loss) <= 1e-5f * std::abs(loss), name);
      QCOMPARE(*trial->metric, static_cast<double>(expected.rbegin()->second));
    }
  }

  void ashaPrunesByItsRuleAndAPromotedTrialResumesExactly() {
    Sweep s;
    QVERIFY(
        s.make("base: job.yaml\n"
               "method: grid\n"
               "parameters:\n"
               "  optimizer.lr: [1e-4, 2e-4, 4e-4, 8e-4]\n"
               "metric: {name: lr, goal: max}\n"
               "early_stopping: {method: asha, unit: steps, rungs: [4, 8, 16], reduction_factor: 2}\n",
               24));
    QCOMPARE(s.begin(1), QString());
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    // One slot, trials in grid order, each better than all before it (lr goal max): the first at
    // a rung is alone there (the top floor(1/2) = none pass), each later one is the best.
    SweepState state = s.saved();
    const auto stateOf = [&](const char* name) { return byName(state, name); };
    QVERIFY(stateOf("lr=1e-4") && stateOf("lr=2e-4") && stateOf("lr=4e-4") && stateOf("lr=8e-4"));
    QCOMPARE(stateOf("lr=1e-4")->state, TrialState::Pruned);
    QCOMPARE(stateOf("lr=1e-4")->lastRung(), 0);
    QCOMPARE(stateOf("lr=2e-4")->state, TrialState::Pruned);
    QCOMPARE(stateOf("lr=2e-4")->lastRung(), 1);
    QCOMPARE(stateOf("lr=4e-4")->state, TrialState::Pruned);
    QCOMPARE(stateOf("lr=4e-4")->lastRung(), 2);
    QCOMPARE(stateOf("lr=8e-4")->state, TrialState::Finished);
    QCOMPARE(stateOf("lr=2e-4")->note, std::string("pruned at rung 1 (8 steps)"));
    QCOMPARE(stateOf("lr=2e-4")->resultAt(1)->at, 8);
    // Pruned runs stopped at their rung with a checkpoint there.
    QVERIFY(QDir(QDir(s.runOf(*stateOf("lr=2e-4"))).filePath("checkpoints/step-00000008")).exists());
    QCOMPARE(lossesOf(s.runOf(*stateOf("lr=2e-4"))).rbegin()->first, 8);

    // Promoted by the user twice (ASHA prunes it again at rung 2): it runs to the end, one run.
    const QString promoted = QString::fromStdString(stateOf("lr=2e-4")->params.id);
    const QString runDir = s.runOf(*stateOf("lr=2e-4"));
    QCOMPARE(s.runner->promote(promoted), QString());
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    state = s.saved();
    QCOMPARE(stateOf("lr=2e-4")->state, TrialState::Pruned);
    QCOMPARE(stateOf("lr=2e-4")->lastRung(), 2);
    QCOMPARE(s.runner->promote(promoted), QString());
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    state = s.saved();
    QCOMPARE(stateOf("lr=2e-4")->state, TrialState::Finished);
    QCOMPARE(s.runOf(*stateOf("lr=2e-4")), runDir);
    QCOMPARE(s.runFolders().size(), qsizetype(4));
    // Its losses, across three stops and resumes, are those of the same job run straight through.
    const QString threads = QString::number(std::max(1, QThread::idealThreadCount()));
    const QString alone = runAlone(s.jobDir, "alone", {"optimizer.lr=0.0002"}, threads);
    QVERIFY(!alone.isEmpty());
    const auto expected = lossesOf(alone), got = lossesOf(runDir);
    QCOMPARE(got.size(), std::size_t(24));
    for (const auto& [step, loss] : expected)
      QVERIFY2(std::abs(got.at(step) - loss) <= 1e-5f * std::abs(loss), qPrintable(QString("step %1").arg(step)));

    // A trial whose run the user deleted is not run again, promoted or not: it says deleted.
    QVERIFY(QDir(s.runOf(*stateOf("lr=1e-4"))).removeRecursively());
    QCOMPARE(s.runner->promote(QString::fromStdString(stateOf("lr=1e-4")->params.id)), QString());
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    state = s.saved();
    QCOMPARE(stateOf("lr=1e-4")->state, TrialState::Deleted);
    QCOMPARE(s.runFolders().size(), qsizetype(3));
    // ... unless asked: run again, it starts afresh in a new run (and ASHA prunes it at rung 0
    // again, the worst there). Only a deleted or failed trial runs again.
    QVERIFY(!s.runner->rerun(promoted).isEmpty());
    const std::string deletedRun = stateOf("lr=1e-4")->runFolder;
    QCOMPARE(s.runner->rerun(QString::fromStdString(stateOf("lr=1e-4")->params.id)), QString());
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    state = s.saved();
    QCOMPARE(stateOf("lr=1e-4")->state, TrialState::Pruned);
    QCOMPARE(stateOf("lr=1e-4")->lastRung(), 0);
    QVERIFY(stateOf("lr=1e-4")->runFolder != deletedRun);
    QVERIFY(QDir(QDir(s.runOf(*stateOf("lr=1e-4"))).filePath("checkpoints/step-00000004")).exists());
    QCOMPARE(s.runFolders().size(), qsizetype(4));
  }

  void aKilledRankIsRetriedOnceFromItsCheckpoint() {
    Sweep s;
    QVERIFY(
        s.make("base: job.yaml\n"
               "method: grid\n"
               "parameters:\n"
               "  optimizer.lr: [1e-3]\n"
               "metric: loss\n",
               100000));  // never ends on its own: the second crash ends it
    qputenv("CHECKPOINT_EVERY", "5");
    QVERIFY(makeTinyJob(s.jobDir));  // checkpoints every 5 steps this time
    QCOMPARE(s.begin(1), QString());
    const auto killRanksAfter = [&](std::int64_t step) {
      const QString runDir = s.runOf(s.runner->state().trials.front());
      const auto running = [&] {
        const RunInfo info = readRunInfo(RunPaths{runDir.toStdString()}).info;
        return info.status == RunStatus::Running && info.step >= step && !info.rankPids.empty();
      };
      if (!QTest::qWaitFor(running, 60000)) return false;
      for (const int pid : readRunInfo(RunPaths{runDir.toStdString()}).info.rankPids) ::kill(pid, SIGKILL);
      return true;
    };
    QVERIFY(killRanksAfter(12));
    QTRY_VERIFY2_WITH_TIMEOUT(s.runner->state().trials.front().retries == 1, qPrintable(s.lines.join('\n')), 60000);
    const QString firstRun = s.runOf(s.runner->state().trials.front());
    QVERIFY(killRanksAfter(readRunInfo(RunPaths{firstRun.toStdString()}).info.step + 3));
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    const TrialRecord trial = s.saved().trials.front();
    QCOMPARE(trial.state, TrialState::Failed);  // a second crash: left alone
    QCOMPARE(trial.retries, 1);
    QVERIFY(!trial.note.empty());
    QCOMPARE(s.runFolders().size(), qsizetype(1));  // the retry resumed the same run
    QVERIFY(lossesOf(firstRun).size() >= 12);
    QVERIFY2(s.lines.join('\n').contains("it runs once more, from its newest checkpoint"),
             qPrintable(s.lines.join('\n')));
  }

  // In a folder named in Chinese, the sweep file's name 70 characters of it (210 bytes): the
  // sweep folder and the trials' runs are made and found again all the same.
  void aRunnerGoneMidSweepIsCarriedOnWithoutRunningATrialTwice() {
    Sweep s;
    QVERIFY(
        s.make("base: job.yaml\n"
               "method: grid\n"
               "parameters:\n"
               "  optimizer.lr: [1e-3, 2e-3, 3e-3]\n"
               "metric: val_loss\n"
               "early_stopping: {method: asha, unit: steps, rungs: [6], reduction_factor: 3}\n",
               30, QString::fromUtf8("实验 · 学习率"), QString::fromUtf8("扫描").repeated(35) + ".yaml"));
    QCOMPARE(s.begin(2), QString());
    QTRY_VERIFY_WITH_TIMEOUT(std::count_if(s.runner->state().trials.begin(), s.runner->state().trials.end(),
                                           [](const TrialRecord& t) { return !t.runFolder.empty(); }) >= 2,
                             60000);
    // The app goes away: its runner and jobs (the trials' supervisors go on, detached).
    s.runner.reset();
    s.jobs.reset();
    QCOMPARE(s.begin(0), QString());  // the next app, told nothing: where the sweep ran (sweep.json)
    QCOMPARE(s.runner->slotCount(), 2);
    QVERIFY2(s.waitDone(), qPrintable(s.lines.join('\n')));
    const SweepState state = s.saved();
    QCOMPARE(state.trials.size(), std::size_t(3));
    std::set<std::string> runs;
    for (const TrialRecord& t : state.trials) {
      QVERIFY2(t.state == TrialState::Finished || t.state == TrialState::Pruned, trialStateName(t.state));
      QVERIFY(t.resultAt(0));  // every trial measured at the rung, once
      runs.insert(t.runFolder);
    }
    QCOMPARE(runs.size(), std::size_t(3));
    QVERIFY2(s.runFolders().size() == 3, qPrintable(s.runFolders().join(", ") + "\n" + s.lines.join('\n')));
    // A second runner on the same sweep while one holds it is refused, and says why.
    JobController other(s.runsRoot, QStringLiteral(TRAINDECK_TRAIN_BIN));
    SweepRunner second(other);
    QVERIFY(second.begin(s.sweepFile, s.sweepDir).contains("another TrainDeck"));
  }
};

QTEST_GUILESS_MAIN(SweepRunnerTest)
#include "sweep_runner_test.moc"
