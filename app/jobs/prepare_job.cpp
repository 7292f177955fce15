#include "prepare_job.h"

#include <QFileInfo>
#include <QRegularExpression>

#include "trainer/data/data_error.h"
#include "trainer/data/dataset_manifest.h"
#include "trainer/data/split_rule.h"

namespace traindeck {

namespace {
QString percent(double fraction) {
  return QString::number(fraction * 100, 'g', 3) + '%';
}
QString fileNames(const QStringList& paths) {
  QStringList names;
  for (const QString& p : paths) names << QFileInfo(p).fileName();
  if (names.size() > 4)
    return QObject::tr("%1 and %n more", nullptr, int(names.size() - 3)).arg(names.mid(0, 3).join(", "));
  return names.join(", ");
}
}  // namespace

PrepareJob::PrepareJob(QObject* parent) : QObject(parent) {
  connect(&m_process, &QProcess::readyReadStandardError, this, &PrepareJob::readProgress);
  connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      emit finished(false, m_outDir, tr("traindeck-train could not be started: %1").arg(m_process.errorString()));
  });
  connect(&m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    readProgress();
    const QString out = QString::fromUtf8(m_process.readAllStandardOutput()).trimmed();
    if (status == QProcess::NormalExit && code == 0) return emit finished(true, m_outDir, out);
    // The last line that is not progress says why.
    QString why;
    for (const QString& line : QString::fromUtf8(m_err).split(QRegularExpression("[\r\n]"), Qt::SkipEmptyParts))
      if (!line.startsWith("prepare: ")) why = line.trimmed();
    emit finished(false, m_outDir, why.isEmpty() ? tr("prepare stopped (exit %1)").arg(code) : why);
  });
}

PrepareJob::~PrepareJob() {
  cancel();
}

QStringList PrepareJob::arguments(const DataConfig& data, const QStringList& inputs, const QString& outDir,
                                  const PrepareSplit& split) {
  QStringList args{"prepare", "--tokenizer", data.tokenizer == TokenizerKind::Gpt2 ? "gpt2" : "byte"};
  if (data.tokenizer == TokenizerKind::Gpt2)
    args << "--vocab" << QString::fromStdString(data.vocab) << "--merges" << QString::fromStdString(data.merges);
  args << "--out" << outDir << "--val-fraction" << QString::number(split.valFraction, 'g', 12);
  if (split.separator) args << "--doc-separator" << *split.separator;  // "" (an empty line) included
  args << "--";
  return args + inputs;
}

QString PrepareJob::splitWarning(const QStringList& inputs, const PrepareSplit& split) {
  if (split.separator || inputs.isEmpty() || split.valFraction <= 0) return {};
  QStringList val, train;
  for (int i = 0; i < inputs.size(); ++i)
    (isValidationDocument(static_cast<std::uint64_t>(i), split.valFraction) ? val : train) << inputs[i];
  if (val.isEmpty())
    return tr(
        "Each file is one document (no separator), so validation will be empty: choose a document "
        "separator to split inside the files.");
  return tr("Lopsided split: each file is one document (no separator), so %1 goes whole to validation and %2 "
            "whole to training. Choose a document separator to split inside the files.")
      .arg(fileNames(val), train.isEmpty() ? tr("nothing") : fileNames(train));
}

QString PrepareJob::preparedSplitWarning(const QString& outDir, const PrepareSplit& split) {
  if (split.valFraction <= 0) return {};
  DatasetManifest manifest;
  try {
    manifest = readManifest(outDir.toStdString());
  } catch (const DataError&) {
    return {};  // what went wrong with the folder is said elsewhere
  }
  const double total = static_cast<double>(manifest.train.tokens + manifest.val.tokens);
  if (total <= 0) return {};
  const double share = static_cast<double>(manifest.val.tokens) / total;
  if (manifest.val.tokens == 0)
    return tr(
        "Lopsided split: validation is empty (%n document(s) in all); choose a document separator or add "
        "files.",
        nullptr, static_cast<int>(manifest.train.documents));
  // Far more than asked: a few documents were whole files, or one document outweighs the rest.
  if (share > 3 * split.valFraction && share > split.valFraction + 0.02)
    return tr("Lopsided split: validation holds %1 of the tokens (%n document(s)), not the %2 asked for.", nullptr,
              static_cast<int>(manifest.val.documents))
        .arg(percent(share), percent(split.valFraction));
  return {};
}

void PrepareJob::start(const QString& trainBinary, const DataConfig& data, const QStringList& inputs,
                       const QString& outDir, const PrepareSplit& split) {
  if (isRunning()) return;
  m_outDir = QFileInfo(outDir).absoluteFilePath();
  m_err.clear();
  m_process.start(trainBinary, arguments(data, inputs, m_outDir, split));  // argv, never a shell
}

void PrepareJob::cancel() {
  if (!isRunning()) return;
  m_process.kill();
  m_process.waitForFinished(3000);
}

void PrepareJob::readProgress() {
  m_err += m_process.readAllStandardError();
  // The newest "prepare:  42.0% ..." on the current line.
  const qsizetype at = m_err.lastIndexOf("prepare: ");
  if (at < 0) return;
  const QString line = QString::fromUtf8(m_err.mid(at)).section('\r', 0, 0).section('\n', 0, 0).trimmed();
  static const QRegularExpression percent(QStringLiteral("^prepare:\\s+([0-9.]+)%"));
  const QRegularExpressionMatch m = percent.match(line);
  if (m.hasMatch()) emit progress(m.captured(1).toDouble(), line);
}

}  // namespace traindeck
