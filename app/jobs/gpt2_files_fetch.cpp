#include "gpt2_files_fetch.h"

#include <QDir>
#include <QFileInfo>

namespace traindeck {

bool Gpt2Files::present(const QString& folder) {
  const QDir dir(folder);
  return QFileInfo(dir.filePath("encoder.json")).isFile() && QFileInfo(dir.filePath("vocab.bpe")).isFile();
}

Gpt2FilesFetch::Gpt2FilesFetch(QObject* parent) : QObject(parent) {
  m_process.setProcessChannelMode(QProcess::SeparateChannels);
  connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      end(false, tr("bash could not be started to fetch GPT-2's files: %1").arg(m_process.errorString()));
  });
  connect(&m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    const QString err = QString::fromUtf8(m_process.readAllStandardError()).trimmed();
    if (status == QProcess::NormalExit && code == 0 && Gpt2Files::present(m_folder)) return end(true, {});
    // The script's last line says why ("npm is needed ... (apt-get install npm)"); npm's own
    // complaint (no network) comes before it.
    const QString last = err.section('\n', -1).trimmed();
    end(false, last.isEmpty() ? tr("fetching GPT-2's files stopped (exit %1) and left them incomplete in %2")
                                    .arg(code)
                                    .arg(QDir::toNativeSeparators(m_folder))
                              : last);
  });
}

Gpt2FilesFetch::~Gpt2FilesFetch() {
  m_ended = true;
  if (isRunning()) {
    m_process.kill();
    m_process.waitForFinished(2000);
  }
}

void Gpt2FilesFetch::start(const QString& script, const QString& folder) {
  m_folder = folder;
  m_ended = false;
  if (!QFileInfo(script).isFile())
    return end(false, tr("The script that fetches GPT-2's files is missing (%1): reinstall TrainDeck, or run "
                         "packaging/fetch-gpt2-tokenizer.sh from its sources")
                          .arg(QDir::toNativeSeparators(script)));
  m_process.start(QStringLiteral("bash"), {script, folder});
}

void Gpt2FilesFetch::end(bool ok, const QString& why) {
  if (m_ended) return;
  m_ended = true;
  emit finished(ok, m_folder, why);
}

}  // namespace traindeck
