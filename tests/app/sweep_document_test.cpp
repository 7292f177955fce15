// The Setup page's sweep document without widgets: it starts as the job's sweep file (or an
// example that varies the job), reads what is typed with every problem at its line, counts the
// trials and costs each one's own job on the device the job is planned for, follows the base
// job's file and the slots, and is runnable only saved and without errors.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "job_document.h"
#include "sweep_document.h"

namespace traindeck {

namespace {

// A CUDA job (planned on an H100 by default) of 100 steps of 64 x 2 tokens, its data beside it.
QString jobText(int maxSteps = 100) {
  return QStringLiteral(
             "name: tiny\n"
             "model: {n_layer: 2, n_head: 2, n_embd: 64, n_positions: 128, block_size: 64, vocab_size: 257}\n"
             "data: {train: data, tokenizer: byte}\n"
             "strategy: {device: cuda, micro_batch: 2}\n"
             "schedule: {max_steps: %1, warmup_steps: 10}\n")
      .arg(maxSteps);
}

const QString kGrid = QStringLiteral(
    "base: job.yaml\n"
    "method: grid\n"
    "repeats: {seeds: [1, 2]}\n"
    "parameters:\n"
    "  optimizer.lr: [1e-4, 3e-4]\n"
    "  model.n_embd: [32, 64, 96]\n");

QString problemsText(const SweepDocument& sweep) {
  QString out;
  for (const Diagnostic& d : sweep.problems()) out += QString::fromStdString(d.format("sweep.yaml")) + "\n";
  return out;
}

bool writeFile(const QString& path, const QByteArray& text) {
  QFile out(path);
  return out.open(QIODevice::WriteOnly) && out.write(text) == text.size();
}

}  // namespace

class SweepDocumentTest : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    m_dir.emplace();
    QVERIFY(QDir(m_dir->path()).mkpath("data"));
    QVERIFY(writeFile(m_dir->filePath("data/dataset.json"), "{}"));
    m_job.emplace();
    m_job->load(jobText(), {}, m_dir->path());
    QVERIFY(m_job->saveTo(m_dir->filePath("job.yaml")).isEmpty());
  }

  void aNewSweepVariesTheJob() {
    SweepDocument sweep(&*m_job);
    QVERIFY2(sweep.text().contains("base: job.yaml"), qPrintable(sweep.text()));
    QVERIFY(sweep.filePath().isEmpty());
    QVERIFY(!sweep.isModified());
    QVERIFY2(sweep.problems().empty(), qPrintable(problemsText(sweep)));
    const SweepSummary& summary = sweep.summary();
    QVERIFY(summary.readable);
    QCOMPARE(summary.count.trials, 3);
    QVERIFY2(summary.cost.has_value(), qPrintable(summary.why));
    QVERIFY(summary.device.contains("H100"));
    QCOMPARE(summary.cost->atMost.tokens, 3.0 * 100 * 64 * 2);
    QVERIFY(!sweep.isRunnable());  // not saved
    QCOMPARE(sweep.defaultSaveFile(), m_dir->filePath("job.sweep.yaml"));
    QVERIFY(sweep.saveTo(sweep.defaultSaveFile()).isEmpty());
    QVERIFY(sweep.isRunnable());
  }

  void theJobsSweepFileIsOpenedWithTheJob() {
    QVERIFY(writeFile(m_dir->filePath("other.yaml"), jobText().toUtf8()));
    QVERIFY(writeFile(m_dir->filePath("other.sweep.yaml"), kGrid.toUtf8().replace("job.yaml", "other.yaml")));
    SweepDocument sweep(&*m_job);
    m_job->load(jobText(), m_dir->filePath("other.yaml"), m_dir->path());
    QCOMPARE(sweep.filePath(), m_dir->filePath("other.sweep.yaml"));
    QCOMPARE(sweep.summary().count.trials, 12);
    QVERIFY2(sweep.isRunnable(), qPrintable(problemsText(sweep) + sweep.summary().why));
    // Edits are never dropped: another job leaves an edited sweep as it is.
    sweep.setText(sweep.text() + "# mine\n");
    m_job->load(jobText(), m_dir->filePath("job.yaml"), m_dir->path());
    QCOMPARE(sweep.filePath(), m_dir->filePath("other.sweep.yaml"));
    QVERIFY(sweep.text().endsWith("# mine\n"));
    QVERIFY(!sweep.isRunnable());  // edited, not saved
  }

  void aGridOfTwoByThreeWithTwoSeedsIsTwelveTrialsAndTheBudgetCapsIt() {
    SweepDocument sweep(&*m_job);
    sweep.setText(kGrid);
    QVERIFY2(sweep.problems().empty(), qPrintable(problemsText(sweep)));
    QCOMPARE(sweep.summary().count.configurations, 6);
    QCOMPARE(sweep.summary().count.trials, 12);
    QVERIFY(sweep.summary().cost.has_value());
    // Each trial's own job: n_embd 32, 64 and 96 take different step times, the same steps.
    const std::vector<TrialRun>& runs = sweep.summary().runs;
    QCOMPARE(runs.size(), std::size_t(12));
    QCOMPARE(runs.front().steps, 100);
    QVERIFY(runs[0].stepSeconds < runs[4].stepSeconds);
    sweep.setText(kGrid + "budget: {trials: 5}\n");
    QCOMPARE(sweep.summary().count.planned, 12);
    QCOMPARE(sweep.summary().count.trials, 5);
    QCOMPARE(sweep.summary().cost->atMost.tokens, 5.0 * 100 * 64 * 2);
  }

  void aBadValueIsAProblemAtItsLineAndNoCost() {
    SweepDocument sweep(&*m_job);
    QSignalSpy changed(&sweep, &SweepDocument::changed);
    sweep.setText(QString(kGrid).replace("[1e-4, 3e-4]", "[1e-4, -1]"));
    QCOMPARE(changed.count(), 1);
    QVERIFY(hasErrors(sweep.problems()));
    const Diagnostic& bad = sweep.problems().front();
    QCOMPARE(bad.line, 5);
    QVERIFY2(bad.message.find("greater than 0") != std::string::npos, bad.message.c_str());
    QVERIFY(!sweep.summary().readable);
    QVERIFY(!sweep.summary().cost);
    QVERIFY(!sweep.summary().why.isEmpty());
  }

  void anInvalidTrialSaysWhyInsteadOfACost() {
    SweepDocument sweep(&*m_job);
    sweep.setText(QString(kGrid).replace("[32, 64, 96]", "[64, 33]"));  // n_head 2 does not divide 33
    QVERIFY(sweep.summary().readable);
    QCOMPARE(sweep.summary().count.trials, 8);
    QVERIFY(hasErrors(sweep.problems()));
    QVERIFY(!sweep.summary().cost);
    QVERIFY2(sweep.summary().why.contains("not valid"), qPrintable(sweep.summary().why));
    const QString said = problemsText(sweep);
    QVERIFY2(said.contains("n_embd=33") && said.contains("not divisible"), qPrintable(said));
  }

  // What this machine lacks is a problem of where the trials run, not of their plan: listed,
  // and it keeps the sweep from running, but the cost stands.
  void aMachineWithoutCudaIsAProblemButNotOfTheCost() {
    SweepDocument sweep(&*m_job);
    QVERIFY(sweep.problems().empty());
    m_job->setThisMachine(HostDevices{});
    QVERIFY(sweep.saveTo(sweep.defaultSaveFile()).isEmpty());
    QVERIFY2(hasErrors(sweep.problems()), qPrintable(problemsText(sweep)));
    QVERIFY2(problemsText(sweep).contains("every trial"), qPrintable(problemsText(sweep)));
    QVERIFY2(sweep.summary().cost.has_value(), qPrintable(sweep.summary().why));
    QVERIFY(!sweep.isRunnable());
    m_job->setThisMachine(std::nullopt);
    QVERIFY2(sweep.problems().empty(), qPrintable(problemsText(sweep)));
    QVERIFY(sweep.isRunnable());
  }

  void anUnsavedJobHasNoCostYet() {
    JobDocument job;
    job.load(jobText(), {}, m_dir->filePath("data"));  // no job.yaml in that folder
    SweepDocument sweep(&job);
    QVERIFY(sweep.summary().readable);
    QVERIFY(!sweep.summary().cost);
    QVERIFY2(sweep.summary().why.contains("Save the job"), qPrintable(sweep.summary().why));
    QVERIFY(hasErrors(sweep.problems()));
  }

  void theCostFollowsTheSavedJobTheDeviceAndTheSlots() {
    SweepDocument sweep(&*m_job);
    QVERIFY2(sweep.summary().cost.has_value(), qPrintable(sweep.summary().why));
    const double before = sweep.summary().cost->atMost.seconds;
    QVERIFY(sweep.summary().jobNote.isEmpty());
    m_job->setText(jobText(200));
    QCOMPARE(sweep.summary().cost->atMost.seconds, before);  // the trials read the job's file: not saved yet
    QVERIFY2(sweep.summary().jobNote.contains("not saved"), qPrintable(sweep.summary().jobNote));
    QVERIFY(m_job->saveTo(m_job->filePath()).isEmpty());
    QVERIFY(sweep.summary().jobNote.isEmpty());
    QCOMPARE(sweep.summary().runs.front().steps, 200);
    m_job->setPlanDevice("A100-80GB");
    QVERIFY(sweep.summary().device.contains("A100"));
    const double wall = sweep.summary().cost->atMost.wallSeconds;
    sweep.setLocalSlots(3);
    QVERIFY(qAbs(sweep.summary().cost->atMost.wallSeconds - wall / 3) < 1e-9 * wall);
  }

  void asha() {
    SweepDocument sweep(&*m_job);
    sweep.setText(kGrid + "early_stopping: {method: asha, unit: steps, rungs: [10, 30], reduction_factor: 3}\n");
    QVERIFY2(sweep.problems().empty(), qPrintable(problemsText(sweep)));
    const SweepCost& cost = *sweep.summary().cost;
    QVERIFY(cost.expected.has_value());
    // 12 trials of 100 steps: all to step 10, 4 on to 30, 1 to the end: tokens as steps x 128.
    QCOMPARE(cost.expected->tokens, (12.0 * 10 + 4 * 20 + 1 * 70) * 128);
  }

 private:
  std::optional<QTemporaryDir> m_dir;
  std::optional<JobDocument> m_job;
};

}  // namespace traindeck

QTEST_GUILESS_MAIN(traindeck::SweepDocumentTest)
#include "sweep_document_test.moc"
