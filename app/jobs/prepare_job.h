// PrepareJob: `traindeck-train prepare` run for the app: text files to a prepared dataset
// folder (dataset.json and token shards) that data.train can name. Its progress line ("prepare:
// 42.0% ...", rewritten on stderr) becomes a percentage; its end a folder or a sentence.
// GUI thread; the process ends with the object.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "config/run_config.h"

namespace traindeck {

class PrepareJob : public QObject {
  Q_OBJECT
 public:
  explicit PrepareJob(QObject* parent = nullptr);
  ~PrepareJob() override;

  // The data config gives the tokenizer (and GPT-2's files); `inputs` are text files.
  void start(const QString& trainBinary, const DataConfig& data, const QStringList& inputs, const QString& outDir);
  void cancel();
  bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
  // The argument list `start` runs, for showing and for tests.
  static QStringList arguments(const DataConfig& data, const QStringList& inputs, const QString& outDir);

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
