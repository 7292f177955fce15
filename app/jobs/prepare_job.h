// PrepareJob: `traindeck-train prepare` run for the app: text files to a prepared dataset
// folder (dataset.json and token shards) that data.train can name. Its progress line ("prepare:
// 42.0% ...", rewritten on stderr) becomes a percentage; its end a folder or a sentence.
// GUI thread; the process ends with the object.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <optional>

#include "config/run_config.h"

namespace traindeck {

// How `prepare` splits the text into documents and the documents into train and val.
struct PrepareSplit {
  double valFraction = 0.005;  // prepare's --val-fraction default
  // A line holding only this ends a document (--doc-separator); none: each file is one document.
  std::optional<QString> separator;
};

class PrepareJob : public QObject {
  Q_OBJECT
 public:
  explicit PrepareJob(QObject* parent = nullptr);
  ~PrepareJob() override;

  // The data config gives the tokenizer (and GPT-2's files); `inputs` are text files.
  void start(const QString& trainBinary, const DataConfig& data, const QStringList& inputs, const QString& outDir,
             const PrepareSplit& split = {});
  void cancel();
  bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
  // The argument list `start` runs, for showing and for tests.
  static QStringList arguments(const DataConfig& data, const QStringList& inputs, const QString& outDir,
                               const PrepareSplit& split = {});
  // Before preparing: a sentence when the split will be lopsided because each file is one
  // document (no separator): which files go whole to validation, which whole to training, by
  // prepare's own split rule. Empty when there is nothing to say.
  static QString splitWarning(const QStringList& inputs, const PrepareSplit& split);
  // After preparing into `outDir`: a sentence when its dataset.json shows validation empty or
  // holding far more of the tokens than asked for. Empty when the split looks as asked.
  static QString preparedSplitWarning(const QString& outDir, const PrepareSplit& split);

 signals:
  void progress(double percent, const QString& line);
  // ok: `summary` is what prepare printed; else why it failed.
  void finished(bool ok, const QString& outDir, const QString& summary);

 private:
  void readProgress();

  QProcess m_process;
  QString m_outDir;
  QByteArray m_err;
};

}  // namespace traindeck
