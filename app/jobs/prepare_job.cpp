#include "prepare_job.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace traindeck {

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

QStringList PrepareJob::arguments(const DataConfig& data, const QStringList& inputs, const QString& outDir) {
  QStringList args{"prepare", "--tokenizer", data.tokenizer == TokenizerKind::Gpt2 ? "gpt2" : "byte"};
  if (data.tokenizer == TokenizerKind::Gpt2)
    args << "--vocab" << QString::fromStdString(data.vocab) << "--merges" << QString::fromStdString(data.merges);
  args << "--out" << outDir << "--";
  return args + inputs;
}

void PrepareJob::start(const QString& trainBinary, const DataConfig& data, const QStringList& inputs,
                       const QString& outDir) {
  if (isRunning()) return;
  m_outDir = QFileInfo(outDir).absoluteFilePath();
  m_err.clear();
  m_process.start(trainBinary, arguments(data, inputs, m_outDir));  // argv, never a shell
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
