// The Setup page offscreen: form and YAML stay in sync both ways, unreadable YAML keeps the
// last good config but the form shows no values, validation shows at the fields and gates
// startability, the plan follows presets, devices and "Where to run". Also renders the page to
// /tmp/setup_page.png for a look. Its dialogs and the files they write: setup_files_test.cpp.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QWheelEvent>
#include <QtTest>

#include "config/config_fields.h"
#include "config/config_io.h"
#include "config/devices.h"
#include "config_form.h"
#include "host_probe.h"
#include "host_store.h"
#include "kind_fits_table.h"
#include "plan_panel.h"
#include "setup_page.h"
#include "setup_test_job.h"

namespace traindeck {

class SetupPageTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(test_support::setUpSetupTestData(m_data)); }

  void formEditsShowInTheYamlAndLoadBackEqual() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    auto* edit = page.findChild<QLineEdit*>("field:strategy.micro_batch");
    QVERIFY(edit);
    QCOMPARE(edit->text(), QString("2"));
    edit->selectAll();
    QTest::keyClicks(edit, "24");
    QVERIFY2(page.yamlText().contains("micro_batch: 24"), qPrintable(page.yamlText()));
    QVERIFY(page.yamlText().contains("# a small byte-level job"));  // comments survive
    QCOMPARE(page.config().strategy.micro_batch, 24);
    const LoadedConfig reloaded = loadConfigText(page.yamlText().toStdString());
    QVERIFY(reloaded.config == page.config());

    // A key the YAML does not have yet is inserted into its section.
    auto* lr = page.findChild<QLineEdit*>("field:optimizer.lr");
    lr->selectAll();
    QTest::keyClicks(lr, "0.002");
    QCOMPARE(page.config().optimizer.lr, 0.002);
    auto* resume = page.findChild<QCheckBox*>("field:checkpoint.resume");
    resume->click();
    QVERIFY(page.config().checkpoint.resume);
    auto* decay = page.findChild<QComboBox*>("field:schedule.decay");
    QCOMPARE(decay->count(), 3);
    decay->setCurrentText("linear");
    emit decay->activated(decay->currentIndex());
    QCOMPARE(page.config().schedule.decay, Decay::Linear);
    QVERIFY(loadConfigText(page.yamlText().toStdString()).config == page.config());
    QVERIFY(page.yamlText().contains("decay: linear"));
  }

  void theWheelScrollsTheFormWithoutChangingWhatItPasses() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.resize(900, 500);
    page.show();
    auto* kind = page.findChild<QComboBox*>("field:strategy.kind");
    QVERIFY(kind);
    const QString before = kind->currentText();
    const auto wheel = [&](QWidget* target) {
      QWheelEvent event(QPointF(5, 5), target->mapToGlobal(QPointF(5, 5)), QPoint(), QPoint(0, -120), Qt::NoButton,
                        Qt::NoModifier, Qt::NoScrollPhase, false);
      QCoreApplication::sendEvent(target, &event);
    };
    kind->clearFocus();
    for (int i = 0; i < 3; ++i) wheel(kind);
    QCOMPARE(kind->currentText(), before);  // passed over: unchanged
    kind->setFocus();
    QTRY_VERIFY(kind->hasFocus());
    wheel(kind);
    QVERIFY(kind->currentText() != before);  // chosen (focused) on purpose: the wheel picks
  }

  void yamlEditsReachTheFormAfterTheDebounce() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    auto* yaml = page.findChild<QPlainTextEdit*>("yaml");
    auto* layers = page.findChild<QLineEdit*>("field:model.n_layer");
    QCOMPARE(layers->text(), QString("2"));
    QTextCursor cursor = yaml->document()->find("n_layer: 2");
    QVERIFY(!cursor.isNull());
    cursor.insertText("n_layer: 6");
    QCOMPARE(layers->text(), QString("2"));  // not yet: debounced
    QTRY_COMPARE_WITH_TIMEOUT(layers->text(), QString("6"), 2000);
    QCOMPARE(page.config().model.n_layer, 6);
  }

  // config() stays the last good one; the form shows no values (issue 40: they may not be the file's).
  void unreadableYamlKeepsTheLastGoodConfig() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    QSignalSpy changed(&page, &SetupPage::configChanged);
    QString broken = validJob();
    broken.replace("n_layer: 2", "n_layer: [2");
    page.setYamlText(broken);
    QCOMPARE(page.findChild<QLineEdit*>("field:model.n_layer")->text(), QString());
    QCOMPARE(page.config().model.n_layer, 2);
    QCOMPARE(changed.count(), 0);
    QVERIFY(!page.isStartable());
    auto* error = page.findChild<QLabel*>("yamlError");
    QVERIFY(error->isVisibleTo(&page));
    QVERIFY2(error->text().startsWith("Line "), qPrintable(error->text()));
    const auto marks = page.findChild<QPlainTextEdit*>("yaml")->extraSelections();
    QVERIFY(!marks.isEmpty());
    const int markedLine = marks.first().cursor.blockNumber() + 1;
    QVERIFY2(error->text().startsWith(QString("Line %1:").arg(markedLine)), qPrintable(error->text()));
    QVERIFY2(!error->text().contains("last readable"), qPrintable(error->text()));  // the form shows none
    QVERIFY(page.findChild<QListWidget*>("problems")->item(0)->text().contains("not valid YAML"));
  }

  // Issue 40, item 4: a YAML the page cannot read from the start (a tab in the indentation) is
  // never shown as the defaults' form (12 layers): the form says it cannot show values, and the
  // problem names the tab's line and column.
  void aYamlWithATabShowsNoValuesInTheForm() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    QString tabbed = validJob();
    tabbed.replace("  n_head: 2", "\tn_head: 2");
    page.setYamlText(tabbed);
    QVERIFY(!page.isStartable());
    const int line = tabbed.left(tabbed.indexOf("\tn_head")).count('\n') + 1;
    QVERIFY2(problemText(page).contains(QString("job:%1:1: error: is not valid YAML: tabs are not allowed for "
                                                "indentation")
                                            .arg(line)),
             qPrintable(problemText(page)));
    auto* layers = page.findChild<QLineEdit*>("field:model.n_layer");
    QCOMPARE(layers->text(), QString());
    QVERIFY(!layers->isEnabled());
    QVERIFY(!page.findChild<QComboBox*>("field:strategy.kind")->isEnabled());
    auto* unreadable = page.findChild<QLabel*>("formUnreadable");
    QVERIFY(unreadable && unreadable->isVisibleTo(&page));
    QVERIFY2(unreadable->text().contains(QString("line %1").arg(line)) && unreadable->text().contains("cannot show"),
             qPrintable(unreadable->text()));
    page.setYamlText(validJob());  // readable again: the file's values
    QCOMPARE(layers->text(), QString("2"));
    QVERIFY(layers->isEnabled());
    QVERIFY(!unreadable->isVisibleTo(&page));
  }

  // Issue 40, item 5: emptying a field is a problem at that field (the YAML no longer holds the
  // old value), and a whole number too large for any says the field's range.
  void anEmptiedFieldIsAProblemAtItsLine() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));
    auto* layers = page.findChild<QLineEdit*>("field:model.n_layer");
    layers->selectAll();
    QTest::keyClick(layers, Qt::Key_Backspace);
    QCOMPARE(layers->text(), QString());
    QVERIFY2(!page.yamlText().contains("n_layer: 2"), qPrintable(page.yamlText()));
    QVERIFY(!page.isStartable());
    const int line = page.yamlText().left(page.yamlText().indexOf("n_layer:")).count('\n') + 1;
    QVERIFY2(problemText(page).contains(QString("job:%1:3: error: model.n_layer: has no value").arg(line)),
             qPrintable(problemText(page)));
    QCOMPARE(layers->property("problem").toString(), QString("error"));
    QTest::keyClicks(layers, "12345678901234567890");
    QVERIFY2(problemText(page).contains("model.n_layer: must be from 1 to 1024, not '12345678901234567890'"),
             qPrintable(problemText(page) + page.yamlText()));
    layers->selectAll();
    QTest::keyClicks(layers, "3");
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));
    QCOMPARE(page.config().model.n_layer, 3);
  }

  void crossFieldErrorShowsAtBothFieldsAndGatesStart() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));
    QSignalSpy validity(&page, &SetupPage::validityChanged);
    auto* heads = page.findChild<QLineEdit*>("field:model.n_head");
    heads->selectAll();
    QTest::keyClicks(heads, "3");
    QVERIFY(!page.isStartable());
    QCOMPARE(validity.count(), 1);
    QCOMPARE(validity.takeFirst().at(0).toBool(), false);
    for (const char* path : {"field:model.n_head", "field:model.n_embd"}) {
      auto* editor = page.findChild<QWidget*>(path);
      QCOMPARE(editor->property("problem").toString(), QString("error"));
      QVERIFY2(editor->toolTip().contains("not divisible by n_head"), path);
    }
    QCOMPARE(page.findChild<QWidget*>("field:model.n_layer")->property("problem").toString(), QString());
    auto* problems = page.findChild<QListWidget*>("problems");
    QCOMPARE(problems->count(), 1);
    emit problems->itemClicked(problems->item(0));
    heads->selectAll();
    QTest::keyClicks(heads, "4");
    QVERIFY(page.isStartable());
    QCOMPARE(validity.count(), 1);
    QCOMPARE(validity.takeFirst().at(0).toBool(), true);
    QCOMPARE(page.findChild<QWidget*>("field:model.n_embd")->property("problem").toString(), QString());
  }

  // A local CUDA job is checked against this machine's devices as its trainer reports them (the
  // facts `traindeck-train validate` uses): none, and the device field says so and Start is off.
  // An ssh target is checked against its host's probe, never against this machine.
  void aLocalCudaJobNeedsAGpuOnThisMachine() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    QString job = validJob();
    job.replace("device: cpu", "device: cuda");
    page.setYamlText(job);
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));  // this machine not known yet: not checked
    QSignalSpy validity(&page, &SetupPage::validityChanged);
    page.setThisMachine(HostDevices{.cudaDevices = 0, .bf16 = false, .colabRuntime = false});
    QVERIFY(!page.isStartable());
    QCOMPARE(validity.count(), 1);
    auto* device = page.findChild<QWidget*>("field:strategy.device");
    QVERIFY(device);
    QCOMPARE(device->property("problem").toString(), QString("error"));
    QVERIFY2(device->toolTip().contains("this machine has no CUDA device"), qPrintable(device->toolTip()));
    QVERIFY2(problemText(page).contains("strategy.device"), qPrintable(problemText(page)));
    QVERIFY2(page.findChild<QLabel*>("targetProbe")->text().contains("no CUDA device"),
             qPrintable(page.findChild<QLabel*>("targetProbe")->text()));

    page.setThisMachine(HostDevices{.cudaDevices = 1, .bf16 = true, .colabRuntime = false});  // a GPU machine
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));
    QCOMPARE(device->property("problem").toString(), QString());
    page.setThisMachine(HostDevices{.cudaDevices = 0, .bf16 = false, .colabRuntime = false});
    QVERIFY(!page.isStartable());

    // The same job for a host not probed yet: its devices are not known, this machine's do not count.
    page.setYamlText(job + "target:\n  kind: ssh\n  host: gpu-box\n");
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));
  }

  void everyFieldHasAnEditorWithItsDoc() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    auto* micro = page.findChild<QWidget*>("field:strategy.micro_batch");
    QVERIFY(micro->toolTip().contains("Sequences per rank"));
    QVERIFY(micro->toolTip().contains("whole number"));
    QVERIFY(page.findChild<QLineEdit*>("field:optimizer.betas"));
    QCOMPARE(page.findChild<QLineEdit*>("field:optimizer.betas")->text(), QString("[0.9, 0.95]"));
    QCOMPARE(page.findChild<QLineEdit*>("field:runs_root")->text(), QString("${TRAINDECK_DATA}/runs"));
  }

  void fieldsAreLabelledInWordsWithTheirKeyInTheTooltip() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    QHash<QWidget*, QLabel*> labelOf;
    for (QLabel* label : page.findChildren<QLabel*>())
      if (label->buddy() != nullptr) labelOf.insert(label->buddy(), label);
    QSet<QString> texts;
    for (const FieldInfo& info : configFieldInfos()) {
      const QString path = QString::fromStdString(info.path);
      QWidget* editor = page.findChild<QWidget*>("field:" + path);
      QVERIFY2(editor && labelOf.contains(editor), qPrintable(path));
      const QString text = labelOf.value(editor)->text();
      QVERIFY2(!text.contains('_') && text != path.section('.', -1), qPrintable(path + " is labelled " + text));
      QVERIFY2(!texts.contains(text), qPrintable("two fields are labelled " + text));
      texts.insert(text);
      QVERIFY2(editor->toolTip().contains("<code>" + path + "</code>"), qPrintable(path));
    }
    QVERIFY(labelOf.value(page.findChild<QWidget*>("field:strategy.bucket_mb"))->text().contains("MB"));
  }

  void browseFillsAPathField() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    auto* form = page.findChild<ConfigForm*>("configForm");
    QString askedFor;
    form->setPathChooser([&](const QString& path, bool folder, const QString&) {
      askedFor = path + (folder ? " folder" : " file");
      return m_data.filePath("tokens");
    });
    QVERIFY(!page.findChild<QToolButton*>("browse:strategy.micro_batch"));  // not a path
    page.findChild<QToolButton*>("browse:data.val")->click();
    QCOMPARE(askedFor, QString("data.val folder"));
    QCOMPARE(QString::fromStdString(page.config().data.val), m_data.filePath("tokens"));
    page.findChild<QToolButton*>("browse:data.vocab")->click();
    QCOMPARE(askedFor, QString("data.vocab file"));
  }

  void unsavedEditsAreNotLostWithoutAQuestion() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.choosePreset("demo-cpu");
    QVERIFY(!page.isModified());
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    auto* micro = page.findChild<QLineEdit*>("field:strategy.micro_batch");
    micro->selectAll();
    QTest::keyClicks(micro, "3");
    QVERIFY(page.isModified());
    const QString edited = page.yamlText();
    QString asked;
    QMessageBox::StandardButton reply = QMessageBox::Cancel;
    QTimer answer;  // answers the question when it is up
    connect(&answer, &QTimer::timeout, this, [&] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        asked = box->text();
        box->button(reply)->click();
      }
    });
    answer.start(20);
    auto* presets = page.findChild<QComboBox*>("presetChooser");
    page.choosePreset("gpt2-124m-1gpu");
    QVERIFY2(asked.contains("not saved"), qPrintable(asked));
    QCOMPARE(page.yamlText(), edited);  // Cancel: kept
    QCOMPARE(presets->currentText(), QString("demo-cpu"));
    asked.clear();
    reply = QMessageBox::Discard;
    page.choosePreset("gpt2-124m-1gpu");
    QVERIFY(!asked.isEmpty());
    QVERIFY(page.yamlText() != edited);
    QVERIFY(!page.isModified());
    QCOMPARE(presets->currentText(), QString("gpt2-124m-1gpu"));
    // A file opened: the preset box names no preset any more; nothing was changed, nothing asked.
    asked.clear();
    const QString file = m_data.filePath("job.yaml");
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly) && out.write(validJob().toUtf8()) > 0);
    out.close();
    page.openFile(file);
    QCOMPARE(page.filePath(), file);
    QCOMPARE(presets->currentIndex(), -1);
    QVERIFY(asked.isEmpty());
  }

  void fromRunOffersTheRunsNewestFirst() {
    QTemporaryDir runs;
    for (const char* id : {"20261201-090000-tiny", "20261201-100000-tiny-lr"}) {
      QDir().mkpath(runs.filePath(id));
      QFile config(runs.filePath(QString(id) + "/config.yaml"));
      QVERIFY(config.open(QIODevice::WriteOnly) && config.write(validJob().toUtf8()) > 0);
      QFile info(runs.filePath(QString(id) + "/run.json"));
      QVERIFY(info.open(QIODevice::WriteOnly));
      info.write(QString(R"({"id":"%1","name":"tiny %1","status":"finished"})").arg(id).toUtf8());
    }
    QDir().mkpath(runs.filePath("not-a-run"));
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setRunsRoot(runs.path());
    // The runs_root key says where this app really keeps runs.
    QVERIFY(page.findChild<ConfigForm*>("configForm")->fieldNote("runs_root").contains(runs.path()));
    const auto choices = page.runChoices();
    QCOMPARE(choices.size(), 2);
    QCOMPARE(choices[0].second, runs.filePath("20261201-100000-tiny-lr"));
    QVERIFY(choices[0].first.startsWith("tiny 20261201-100000-tiny-lr — "));
    page.newFromConfig(choices[1].second + "/config.yaml");
    QCOMPARE(page.filePath(), QString());  // its settings, not its file
    QCOMPARE(page.config().strategy.micro_batch, 2);
  }

  void planFollowsPresetsAndDevices() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    auto* presets = page.findChild<QComboBox*>("presetChooser");
    QCOMPARE(presets->count(), 9);
    page.choosePreset("gpt2-124m-1gpu");
    QCOMPARE(presets->currentText(), QString("gpt2-124m-1gpu"));
    auto* plan = page.findChild<PlanPanel*>("plan");
    QVERIFY2(plan->summaryText().contains("124,439,808"), qPrintable(plan->summaryText()));
    QCOMPARE(plan->deviceName(), QString("H100"));
    // The whole run: its steps at the estimated step time, and its GPU-hours.
    const QString whole = page.findChild<QLabel*>("plan.wholeRun")->text();
    const QString steps = QString::number(page.config().schedule.max_steps);
    QVERIFY2(whole.contains("GPU-hours") && QString(whole).remove(',').contains(steps + " steps"), qPrintable(whole));

    page.choosePreset("gpt2-1.5b-8gpu-zero1");
    plan->setDeviceName("T4");
    const QString text = plan->summaryText();
    QVERIFY2(text.contains("Does not fit"), qPrintable(text));
    QVERIFY(!page.findChild<QLabel*>("plan.warning")->text().isEmpty());
  }

  void whereToRunPicksAHostAndPlansForWhatItHas() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.choosePreset("gpt2-124m-1gpu");
    QByteArray answer = "hostname=gpu-box\ncpus=96\nmemory_kb=2000000000\n";
    for (int i = 0; i < 8; ++i) answer += "gpu=NVIDIA H100 80GB HBM3, 81559, 550.54.15\n";
    answer += "torch=2.11.0+cu128\ntorch_cuda=12.8\ntorch_cxx11_abi=1\nend=probe\n";
    const HostStore::StoredProbe stored{.probe = parseHostProbe(answer), .at = QDateTime::currentDateTimeUtc()};
    QVERIFY(stored.probe.complete);
    const QString spec = "me@gpu-box:2222";
    const HostEntry box{.name = "box",
                        .spec = spec,
                        .identityFile = "/keys/id_box",
                        .proxyCommand = "cloudflared access ssh --hostname %h"};
    page.setHosts({box}, {{spec, stored}});
    auto* where = page.findChild<QComboBox*>("targetChooser");
    QCOMPARE(where->count(), 2);
    QCOMPARE(where->currentIndex(), 0);  // this machine
    QVERIFY(page.findChild<QLabel*>("targetProbe")->text().contains("this machine"));
    where->setCurrentIndex(1);
    emit where->activated(1);
    QCOMPARE(page.config().target.kind, TargetKind::Ssh);
    QCOMPARE(QString::fromStdString(page.config().target.host), spec);
    QCOMPARE(page.config().target.identity, std::string("/keys/id_box"));
    QCOMPARE(page.config().target.proxy_command, std::string("cloudflared access ssh --hostname %h"));
    QVERIFY(loadConfigText(page.yamlText().toStdString()).config == page.config());
    // A user and port left from a host typed before would override the saved host's spec: gone.
    RunConfig typed = page.config();
    typed.target.user = "bob";
    typed.target.port = 2200;
    page.setYamlText(QString::fromStdString(saveConfigText(typed)));
    emit where->activated(1);  // the same host again: what was typed for it stays
    QCOMPARE(page.config().target.user, std::string("bob"));
    QCOMPARE(page.config().target.port, 2200);
    typed.target.host = "old-box";
    page.setYamlText(QString::fromStdString(saveConfigText(typed)));
    emit where->activated(1);
    QCOMPARE(page.config().target.user, std::string());
    QCOMPARE(page.config().target.port, TargetConfig{}.port);
    QCOMPARE(QString::fromStdString(page.config().target.host), spec);
    const QString shown = page.findChild<QLabel*>("targetProbe")->text();
    QVERIFY2(shown.contains("8× H100 80GB · torch 2.11.0+cu128 · CUDA 12.8"), qPrintable(shown));
    auto* plan = page.findChild<PlanPanel*>("plan");
    QCOMPARE(plan->deviceName(), QString("host"));
    QVERIFY2(plan->summaryText().contains(spec), qPrintable(plan->summaryText()));
    QCOMPARE(page.findChild<QLabel*>("plan.warning")->text(), QString());

    // More ranks than the host has GPUs: an error at the field, naming the host.
    const auto rankErrors = [&page] {
      QStringList said;
      for (const Diagnostic& d : page.problems())
        if (d.path == "strategy.nproc_per_node" && d.severity == Severity::Error)
          said << QString::fromStdString(d.message);
      return said.join('\n');
    };
    QCOMPARE(rankErrors(), QString());
    auto* ranks = page.findChild<QLineEdit*>("field:strategy.nproc_per_node");
    QVERIFY(ranks);
    ranks->selectAll();
    QTest::keyClicks(ranks, "16");
    QCOMPARE(page.config().strategy.nproc_per_node, 16);
    QVERIFY2(rankErrors().contains("16 ranks on CUDA, but me@gpu-box:2222 has 8 CUDA devices"),
             qPrintable(rankErrors()));
    QVERIFY(!page.isStartable());
    ranks->selectAll();
    QTest::keyClicks(ranks, "8");
    QCOMPARE(rankErrors(), QString());

    // A host named by the config but not saved is shown as such; back to this machine.
    page.setHosts({}, {});
    QCOMPARE(where->count(), 2);
    QVERIFY(where->currentText().contains("not under Hosts"));
    QVERIFY(page.findChild<QLabel*>("targetProbe")->text().contains("not probed yet"));
    QVERIFY(plan->deviceName() != "host");
    where->setCurrentIndex(0);
    emit where->activated(0);
    QCOMPARE(page.config().target.kind, TargetKind::Local);
  }

  // Issue 25, item 7: a name in any script is a name; the page accepts it as typed.
  void aRunNameInAnyScriptIsAccepted() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob().replace("name: tiny", "name: 我的第一个模型"));
    QCOMPARE(QString::fromStdString(page.config().name), QString("我的第一个模型"));
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));
    for (const Diagnostic& d : page.problems()) QVERIFY2(d.path != "name", d.message.c_str());
    QCOMPARE(page.findChild<QLineEdit*>("field:name")->text(), QString("我的第一个模型"));
  }

  // Issue 25, item 8: a "Where to run" choice is one edit of the YAML; Ctrl+Z there takes all of
  // it back at once, the chooser and the form show it at once, and a line says what was undone.
  void whereToRunIsOneUndoableEditOfTheYaml() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.resize(1400, 900);
    page.setYamlText(validJob());
    const QString spec = "me@gpu-box:2222";
    page.setHosts({{.name = "box",
                    .spec = spec,
                    .identityFile = "/keys/id_box",
                    .proxyCommand = "cloudflared access ssh --hostname %h"}},
                  {});
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    auto* yaml = page.findChild<QPlainTextEdit*>("yaml");
    auto* where = page.findChild<QComboBox*>("targetChooser");
    auto* undo = page.findChild<QToolButton*>("yamlUndo");
    QVERIFY(yaml && where && undo);
    QVERIFY(!undo->isEnabled());  // a new text has no history
    where->setCurrentIndex(1);
    emit where->activated(1);
    QCOMPARE(page.config().target.kind, TargetKind::Ssh);
    QVERIFY(page.yamlText().contains("proxy_command"));
    QVERIFY(undo->isEnabled());
    yaml->setFocus();
    QTest::keyClick(yaml, Qt::Key_Z, Qt::ControlModifier);
    // All of it, at once: no debounce to wait for.
    QCOMPARE(page.config().target.kind, TargetKind::Local);
    QCOMPARE(page.config().target.host, std::string());
    QCOMPARE(page.config().target.proxy_command, std::string());
    QCOMPARE(page.yamlText(), validJob());
    QCOMPARE(where->currentIndex(), 0);
    QCOMPARE(page.findChild<QComboBox*>("field:target.kind")->currentText(), QString("local"));
    QVERIFY2(page.historyNote().startsWith("Undone: ") && page.historyNote().contains("target.kind: ssh → local"),
             qPrintable(page.historyNote()));
    QDir().mkpath(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(page.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("setup-undo-where-to-run.png")));
    QTest::keyClick(yaml, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(page.config().target.kind, TargetKind::Ssh);
    QCOMPARE(QString::fromStdString(page.config().target.host), spec);
    QCOMPARE(where->currentIndex(), 1);
    QVERIFY(page.historyNote().startsWith("Redone: "));
    // A form edit is an edit of the same document: the button undoes it too.
    auto* micro = page.findChild<QLineEdit*>("field:strategy.micro_batch");
    micro->selectAll();
    QTest::keyClicks(micro, "7");
    QCOMPARE(page.config().strategy.micro_batch, 7);
    QVERIFY(page.historyNote().isEmpty());
    undo->click();
    QCOMPARE(page.config().strategy.micro_batch, 2);
    QCOMPARE(micro->text(), QString("2"));
    QCOMPARE(page.config().target.kind, TargetKind::Ssh);  // one step back, not two
  }

  // Issue 25: choosing a preset keeps "Where to run" (presets name no target) and says so.
  void aPresetKeepsWhereToRun() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    const QString spec = "me@gpu-box:2222";
    page.setHosts({{.name = "box", .spec = spec, .identityFile = "/keys/id_box", .proxyCommand = ""}}, {});
    auto* where = page.findChild<QComboBox*>("targetChooser");
    where->setCurrentIndex(1);
    emit where->activated(1);
    page.choosePreset("gpt2-124m-1gpu");
    QCOMPARE(QString::fromStdString(page.config().name), QString("gpt2-124m-1gpu"));
    QCOMPARE(page.config().target.kind, TargetKind::Ssh);
    QCOMPARE(QString::fromStdString(page.config().target.host), spec);
    QCOMPARE(page.config().target.identity, std::string("/keys/id_box"));
    QCOMPARE(where->currentIndex(), 1);
    QVERIFY(!page.isModified());  // the preset as chosen, with the target kept
    const QString label = page.findChild<QLabel*>("fileLabel")->text();
    QVERIFY2(label.contains("Where to run kept: " + spec), qPrintable(label));
  }

  // Issue 25: a plan that does not fit is a problem in Problems (and at micro_batch), not only in
  // the plan; it goes when the plan fits.
  void aPlanThatDoesNotFitIsAProblem() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.resize(1500, 950);
    page.choosePreset("gpt2-1.5b-8gpu-zero1");
    auto* plan = page.findChild<PlanPanel*>("plan");
    auto* list = page.findChild<QListWidget*>("problems");
    const auto fitProblems = [&page] {
      QStringList out;
      for (const Diagnostic& d : page.problems())
        if (d.message.find("does not fit") != std::string::npos) out << QString::fromStdString(d.format("job"));
      return out;
    };
    plan->setDeviceName("H200");
    QVERIFY(!plan->summaryText().contains("Does not fit"));
    QCOMPARE(fitProblems(), QStringList());
    plan->setDeviceName("T4");
    QVERIFY(plan->summaryText().contains("Does not fit"));
    QCOMPARE(fitProblems().size(), 1);
    QVERIFY2(
        fitProblems()[0].contains("warning: strategy.micro_batch: does not fit") && fitProblems()[0].contains("T4"),
        qPrintable(fitProblems()[0]));
    QString listed;
    for (int i = 0; i < list->count(); ++i) listed += list->item(i)->text() + "\n";
    QVERIFY2(listed.contains("does not fit") && !listed.contains("No problems"), qPrintable(listed));
    QVERIFY(!page.findChild<QLabel*>("icon:strategy.micro_batch")->pixmap().isNull());
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QDir().mkpath(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(page.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("setup-plan-does-not-fit.png")));
    plan->setDeviceName("H200");
    QCOMPARE(fitProblems(), QStringList());
  }

  // Issue 26: the plan shows per-rank memory under each kind side by side, the job's own kind in
  // bold; the Kaggle T4x2 preset fits as zero3 and not as ddp; the strategy combo says what each
  // kind shards.
  void planShowsEachKindSideBySide() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.resize(1500, 950);
    page.choosePreset("gpt2-1.5b-kaggle-t4x2-zero3");
    auto* plan = page.findChild<PlanPanel*>("plan");
    plan->setDeviceName("T4");
    auto* table = page.findChild<KindFitsTable*>("plan.kinds");
    QVERIFY(table);
    RunConfig config = page.config();
    const DeviceSpec t4 = *findDevice("T4");
    const std::vector<KindFit> fits = planEachKind(config, t4);
    const QStringList rows = table->rowTexts();
    QCOMPARE(rows.size(), 4);
    QCOMPARE(rows[0], "ddp | " + QString::fromStdString(formatBytes(fits[0].perRankBytes)) + " | does not fit | none");
    QVERIFY2(rows[3].startsWith("zero3 | ") && rows[3].contains(" | fits | "), qPrintable(rows[3]));
    QCOMPARE(rows[3].section(" | ", 3), QString::number(fits[3].largestMicroBatch));
    for (int row = 0; row < 4; ++row) QCOMPARE(table->item(row, 0)->font().bold(), row == 3);  // zero3 is the job's
    QVERIFY(plan->summaryText().contains("By kind: ddp | "));
    auto* kind = page.findChild<QComboBox*>("field:strategy.kind");
    QVERIFY(kind);
    const QStringList choices = {"single", "ddp", "zero1", "zero2", "zero3"};
    for (const QString& choice : choices) QVERIFY(kind->findText(choice) >= 0);
    const QString zero2 = kind->itemData(kind->findText("zero2"), Qt::ToolTipRole).toString();
    const QString zero3 = kind->itemData(kind->findText("zero3"), Qt::ToolTipRole).toString();
    QVERIFY2(zero2.startsWith("zero2: the gradients sharded too") && zero2.endsWith("."), qPrintable(zero2));
    QVERIFY2(zero3.startsWith("zero3: the parameters sharded too") && zero3.contains("; recomputes"), qPrintable(zero3));
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QDir().mkpath(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(page.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("setup-plan-by-kind.png")));
  }

  void aLongStepTimeReadsAsPeopleSayIt() {
    // GPT-2 XL in fp32 on this machine's CPU: a step of hours, said "2h05m", never "7.16e+03 s".
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.choosePreset("gpt2-1.5b-8gpu-zero1");
    QString text = page.yamlText();
    text.replace("precision: bf16", "precision: fp32");
    page.setYamlText(text);
    page.findChild<PlanPanel*>("plan")->setDeviceName("CPU");
    const QString step = page.findChild<QLabel*>("plan.stepTime")->text();
    QVERIFY2(!step.startsWith("unknown") && step.contains("utilization"), qPrintable(step));
    QVERIFY2(!step.contains("e+") && !step.contains(" s at"), qPrintable(step));
  }

  // Issue 40, item 2: a device problem is one of where the job runs, not of its model: a GPT-2
  // preset on a machine without a GPU still has a plan, for the device chosen, while "no CUDA
  // device" stays a problem of the target.
  void aCudaPresetHasAPlanOnAMachineWithoutAGpu() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setThisMachine(HostDevices{.cudaDevices = 0, .bf16 = false, .colabRuntime = false});
    page.choosePreset("gpt2-124m-1gpu");
    QVERIFY2(problemText(page).contains("strategy.device: is cuda, but this machine has no CUDA device"),
             qPrintable(problemText(page)));
    QVERIFY(!page.isStartable());
    auto* plan = page.findChild<PlanPanel*>("plan");
    plan->setDeviceName("T4");
    const QString text = plan->summaryText();
    QVERIFY2(text.contains("124,439,808") && text.contains("T4"), qPrintable(text));
    QVERIFY2(!text.contains("Fix the model and strategy"), qPrintable(text));
  }

  // Issue 40, item 6: a flow-style section (docs/slurm.md writes strategy so) stays one: a form
  // edit changes or adds its key inside the braces, keeping the comment and the key order.
  void aFormEditKeepsAFlowStyleSection() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    QString job = validJob();
    job.replace("strategy:\n  device: cpu\n  micro_batch: 2\n",
                "strategy: {kind: ddp, device: cpu, micro_batch: 2}  # as in docs/slurm.md\n");
    page.setYamlText(job);
    QVERIFY2(page.isStartable(), qPrintable(problemText(page)));
    auto* nodes = page.findChild<QLineEdit*>("field:strategy.nnodes");
    QVERIFY(nodes);
    nodes->selectAll();
    QTest::keyClicks(nodes, "2");
    QCOMPARE(page.config().strategy.nnodes, 2);
    QCOMPARE(page.config().strategy.kind, StrategyKind::Ddp);
    QCOMPARE(page.yamlText().count("strategy:"), 1);
    QVERIFY2(page.yamlText().contains(
                 "strategy: {kind: ddp, device: cpu, micro_batch: 2, nnodes: 2}  # as in docs/slurm.md\n"),
             qPrintable(page.yamlText()));
    auto* micro = page.findChild<QLineEdit*>("field:strategy.micro_batch");
    micro->selectAll();
    QTest::keyClicks(micro, "4");
    QVERIFY2(page.yamlText().contains("strategy: {kind: ddp, device: cpu, micro_batch: 4, nnodes: 2}  # as in"),
             qPrintable(page.yamlText()));
    QVERIFY(page.yamlText().startsWith("# a small byte-level job\nname: tiny\nmodel:\n"));
    QVERIFY2(!problemText(page).contains("appears twice") && !problemText(page).contains("not valid YAML"),
             qPrintable(problemText(page)));
  }

  void rendersAScreenshot() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.resize(1500, 950);
    page.choosePreset("gpt2-124m-1gpu");
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    const QDir shots(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(shots.mkpath("."));
    QVERIFY(page.grab().save(shots.filePath("setup_page.png")));
    // And with problems: a cross-field error, a plan that does not fit, unreadable YAML.
    page.choosePreset("gpt2-1.5b-8gpu-zero1");
    page.findChild<PlanPanel*>("plan")->setDeviceName("T4");
    QCoreApplication::processEvents();
    QVERIFY(page.grab().save(shots.filePath("setup_page_t4.png")));
    QString text = page.yamlText();
    text.replace("  preset: gpt2-xl", "  preset: gpt2-xl\n  n_head: 7");
    page.setYamlText(text);
    QCoreApplication::processEvents();
    QVERIFY(page.grab().save(shots.filePath("setup_page_problems.png")));
    page.setYamlText(text.replace("kind: zero1", "kind: [zero1"));
    QCoreApplication::processEvents();
    QVERIFY(page.grab().save(shots.filePath("setup_page_unreadable.png")));
  }

 private:
  QString validJob() const { return test_support::setupTestJob(m_data.path()); }
  static QString problemText(const SetupPage& page) { return test_support::setupProblemText(page); }

  QTemporaryDir m_data;
};

}  // namespace traindeck

QTEST_MAIN(traindeck::SetupPageTest)
#include "setup_page_test.moc"
