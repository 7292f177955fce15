// The Setup page's Sweep tab, offscreen: what is typed is read after a pause and a bad value is
// listed and marked at its line, the trial count and cost follow the text and the slots, and Run
// sweep is enabled only for a saved sweep without errors, asking for it with its file and slots.
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <optional>

#include "setup_page.h"
#include "setup_sweep_tab.h"
#include "setup_test_job.h"
#include "sweep_document.h"
#include "sweep_hosts_picker.h"

namespace traindeck {

namespace {

const QString kGrid = QStringLiteral(
    "base: job.yaml\n"
    "method: grid\n"
    "repeats: {seeds: [1, 2]}\n"
    "parameters:\n"
    "  optimizer.lr: [1e-4, 3e-4]\n"
    "  model.n_embd: [32, 64, 96]\n");

QStringList listed(const QListWidget* list) {
  QStringList out;
  for (int i = 0; i < list->count(); ++i) out << list->item(i)->text();
  return out;
}

}  // namespace

class SetupSweepTabTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(test_support::setUpSetupTestData(m_data)); }

  void init() {
    m_jobs.emplace();
    m_page.emplace(QStringList{TRAINDECK_PRESETS_SOURCE_DIR});
    m_page->setYamlText(test_support::setupTestJob(m_data.path()));
    QVERIFY(m_page->saveFile(m_jobs->filePath("job.yaml")));
    m_page->showSweepTab(true);
    m_tab = m_page->sweepTab();
    m_yaml = m_tab->findChild<QPlainTextEdit*>("sweepYaml");
    m_problems = m_tab->findChild<QListWidget*>("sweepProblems");
    m_trials = m_tab->findChild<QLabel*>("sweep.trials");
    m_run = m_tab->findChild<QPushButton*>("runSweep");
    QVERIFY(m_yaml && m_problems && m_trials && m_run);
    QCOMPARE(m_page->findChild<QTabWidget*>("setupTabs")->currentWidget(), m_tab);
  }

  void cleanup() {
    m_page.reset();
    m_jobs.reset();
  }

  void typingABadValueShowsTheProblemAtItsLine() {
    m_yaml->setPlainText(QString(kGrid).replace("[1e-4, 3e-4]", "[1e-4, -1]"));
    QTRY_VERIFY2(listed(m_problems).join('\n').contains("line 5:"), qPrintable(listed(m_problems).join('\n')));
    QVERIFY2(listed(m_problems).join('\n').contains("greater than 0"), qPrintable(listed(m_problems).join('\n')));
    QCOMPARE(m_yaml->extraSelections().size(), 1);
    QCOMPARE(m_yaml->extraSelections().front().cursor.blockNumber(), 4);
    m_yaml->setPlainText(kGrid);
    QTRY_VERIFY2(listed(m_problems).join('\n').startsWith("No problems"), qPrintable(listed(m_problems).join('\n')));
    QVERIFY(m_yaml->extraSelections().isEmpty());
  }

  void theTrialCountFollowsTheText() {
    QTRY_VERIFY2(m_trials->text().contains("3 configuration"), qPrintable(m_trials->text()));
    m_yaml->setPlainText(kGrid);
    QTRY_VERIFY2(m_trials->text().contains("6 configurations × 2 seeds = 12 trials"), qPrintable(m_trials->text()));
    m_yaml->setPlainText(kGrid + "budget: {trials: 5}\n");
    QTRY_VERIFY2(m_trials->text().contains("budget.trials runs the first 5"), qPrintable(m_trials->text()));
    const QLabel* atMost = m_tab->findChild<QLabel*>("sweep.atMost");
    QVERIFY2(atMost->text().contains("wall on 1 slot"), qPrintable(atMost->text()));
  }

  void theCostSaysASHAsShareAndFollowsTheSlots() {
    const QLabel* expected = m_tab->findChild<QLabel*>("sweep.expected");
    const QLabel* atMost = m_tab->findChild<QLabel*>("sweep.atMost");
    QTRY_VERIFY2(expected->text().startsWith("no early stopping"), qPrintable(expected->text()));
    m_yaml->setPlainText(kGrid + "early_stopping: {method: asha, unit: steps, rungs: [20, 60], reduction_factor: 3}\n");
    QTRY_VERIFY2(expected->text().contains("with ASHA"), qPrintable(expected->text()));
    QVERIFY2(expected->text().contains("(20, 60 steps)"), qPrintable(expected->text()));
    m_tab->findChild<QSpinBox*>("sweepSlots")->setValue(2);
    QVERIFY2(atMost->text().contains("wall on 2 slots"), qPrintable(atMost->text()));
    QVERIFY2(expected->text().contains("wall on 2 slots"), qPrintable(expected->text()));
  }

  // A job whose target is a Slurm cluster: its trials may share jobs, as many as asked go
  // with the start.
  void aSlurmJobsTrialsMayBePackedIntoJobs() {
    QSpinBox* pack = m_tab->findChild<QSpinBox*>("sweepPack");
    QVERIFY(pack && !pack->isEnabled());
    m_page->setYamlText(m_page->yamlText() + "target: {kind: slurm, host: login.example.org}\n");
    QVERIFY(m_page->saveFile(m_jobs->filePath("job.yaml")));
    m_yaml->setPlainText(kGrid);
    QTRY_VERIFY(pack->isEnabled());
    pack->setValue(4);
    const QLabel* atMost = m_tab->findChild<QLabel*>("sweep.atMost");
    QTRY_VERIFY2(atMost->text().contains("wall on 4 slots"), qPrintable(atMost->text()));  // 1 job of 4 at once
    QVERIFY(m_tab->saveFile(m_jobs->filePath("job.sweep.yaml")));
    QTRY_VERIFY(m_run->isEnabled());
    QSignalSpy asked(m_page.operator->(), &SetupPage::sweepStartRequested);
    m_run->click();
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.front().at(2).toInt(), 4);
  }

  void runSweepOnlyForASavedSweepWithoutErrors() {
    QSignalSpy asked(m_page.operator->(), &SetupPage::sweepStartRequested);
    QVERIFY(!m_run->isEnabled());  // the example sweep is not saved yet
    const QString file = m_jobs->filePath("job.sweep.yaml");
    QCOMPARE(m_page->sweep()->defaultSaveFile(), file);
    QVERIFY(m_tab->saveFile(file));
    QVERIFY(m_run->isEnabled());
    m_tab->findChild<QSpinBox*>("sweepSlots")->setValue(3);
    // The saved hosts are listed; the ones ticked go with the start, with their trials at once.
    SweepHostsPicker* hosts = m_tab->hostsPicker();
    QVERIFY(hosts->isHidden());  // none saved
    m_page->setHosts({{"gpu-a", "me@gpu-a", {}, {}}, {"colab", "root@localhost:2222", {}, {}}}, {});
    QVERIFY(!hosts->isHidden());
    QCOMPARE(hosts->rowCount(), 2);
    QVERIFY(hosts->choose("colab", true, 2));
    QVERIFY(!hosts->choose("gone", true));
    m_page->setHosts({{"colab", "root@localhost:2222", {}, {}}, {"gpu-b", "gpu-b", {}, {}}}, {});  // kept
    m_run->click();
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.front().at(0).toString(), file);
    QCOMPARE(asked.front().at(1).toInt(), 3);
    QCOMPARE(asked.front().at(2).toInt(), 1);  // packing is for a Slurm target, and this job's is not
    QVERIFY(!m_tab->findChild<QSpinBox*>("sweepPack")->isEnabled());
    const auto chosen = asked.front().at(3).value<QMap<QString, int>>();
    QCOMPARE(chosen, (QMap<QString, int>{{"colab", 2}}));

    m_yaml->setPlainText(QString(kGrid).replace("[1e-4, 3e-4]", "[1e-4, -1]"));
    QVERIFY(!m_run->isEnabled());  // at once, before the text is read
    QTRY_VERIFY(hasErrors(m_page->sweep()->problems()));
    QVERIFY(!m_run->isEnabled());
    QVERIFY(m_tab->saveFile(file));
    QVERIFY(!m_run->isEnabled());  // saved, but with an error
    m_yaml->setPlainText(kGrid);
    QTRY_VERIFY(!hasErrors(m_page->sweep()->problems()));
    QVERIFY(!m_run->isEnabled());  // without errors, but not saved
    QVERIFY(m_tab->saveFile(file));
    QVERIFY(m_run->isEnabled());
    m_run->click();
    QCOMPARE(asked.count(), 2);
  }

 private:
  QTemporaryDir m_data;
  std::optional<QTemporaryDir> m_jobs;
  std::optional<SetupPage> m_page;
  SetupSweepTab* m_tab = nullptr;
  QPlainTextEdit* m_yaml = nullptr;
  QListWidget* m_problems = nullptr;
  QLabel* m_trials = nullptr;
  QPushButton* m_run = nullptr;
};

}  // namespace traindeck

QTEST_MAIN(traindeck::SetupSweepTabTest)
#include "setup_sweep_tab_test.moc"
