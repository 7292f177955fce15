// The main window on real presets, offscreen: it opens on the demo job, shows its problems
// and plan, follows the preset chooser, and shows a broken file's errors with their lines.
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window.h"

namespace traindeck {

class MainWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_data.isValid());
    qputenv("TRAINDECK_DATA", m_data.path().toUtf8());  // an empty data folder: the demo is not prepared
  }

  void opensOnTheDemoPreset() {
    MainWindow window({TRAINDECK_PRESETS_SOURCE_DIR}, "demo-cpu");
    auto* presets = window.findChild<QComboBox*>("presetChooser");
    QVERIFY(presets);
    QCOMPARE(presets->count(), 6);
    QCOMPARE(presets->currentText(), QString("demo-cpu"));
    QVERIFY(window.findChild<QPlainTextEdit*>("yaml")->toPlainText().contains("name: demo-cpu"));
    const auto* problems = window.findChild<QListWidget*>("problems");
    QCOMPARE(problems->count(), 1);
    QVERIFY(problems->item(0)->text().contains("data.train: does not exist: " + m_data.path() + "/demo"));
    QVERIFY(window.findChild<QLabel*>("plan")->text().contains("462,464"));
  }

  void followsThePresetChooser() {
    MainWindow window({TRAINDECK_PRESETS_SOURCE_DIR}, "demo-cpu");
    window.findChild<QComboBox*>("presetChooser")->setCurrentText("gpt2-774m-8gpu-zero1");
    QVERIFY(window.currentConfigPath().endsWith("gpt2-774m-8gpu-zero1.yaml"));
    const QString plan = window.findChild<QLabel*>("plan")->text();
    QVERIFY2(plan.contains("774,030,080"), qPrintable(plan));
    QVERIFY(plan.contains("H100"));
  }

  void showsEveryProblemOfABrokenFileWithItsLine() {
    MainWindow window({TRAINDECK_PRESETS_SOURCE_DIR},
                      TRAINDECK_TEST_DATA_DIR "/configs/broken/41-several-problems-at-once.yaml");
    const auto* problems = window.findChild<QListWidget*>("problems");
    QCOMPARE(problems->count(), 3);
    QVERIFY(problems->item(0)->text().startsWith("41-several-problems-at-once.yaml:3:12: error: model.n_layer"));
    QCOMPARE(window.findChild<QLabel*>("plan")->text(), QString("Fix the model and strategy sections to see a plan."));
  }

 private:
  QTemporaryDir m_data;
};

}  // namespace traindeck

QTEST_MAIN(traindeck::MainWindowTest)
#include "main_window_test.moc"
