// What the Setup page's two test programs share: a folder for ${TRAINDECK_DATA} (and the
// program's QSettings) holding a dataset as far as validation looks, a small byte-level CPU job
// that trains on it, and the page's problems as text for failure messages.
#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include "setup_page.h"

namespace traindeck::test_support {

// For initTestCase: TRAINDECK_DATA and XDG_CONFIG_HOME point into `data`, whose tokens/ is a
// prepared dataset as far as validation looks. False when it could not be made.
inline bool setUpSetupTestData(const QTemporaryDir& data) {
  if (!data.isValid()) return false;
  qputenv("TRAINDECK_DATA", data.path().toUtf8());
  qputenv("XDG_CONFIG_HOME", data.filePath("config").toUtf8());
  QDir(data.path()).mkpath("tokens");
  QFile manifest(data.filePath("tokens/dataset.json"));
  return manifest.open(QIODevice::WriteOnly) && manifest.write("{}") == 2;
}

inline QString setupTestJob(const QString& dataDir) {
  return QStringLiteral(
             "# a small byte-level job\n"
             "name: tiny\n"
             "model:\n"
             "  n_layer: 2\n"
             "  n_head: 2\n"
             "  n_embd: 64\n"
             "  n_positions: 128\n"
             "  block_size: 64\n"
             "  vocab_size: 257\n"
             "data:\n"
             "  train: \"%1/tokens\"  # prepared elsewhere\n"
             "  tokenizer: byte\n"
             "strategy:\n"
             "  device: cpu\n"
             "  micro_batch: 2\n"
             "schedule:\n"
             "  max_steps: 200\n")
      .arg(dataDir);
}

inline QString setupProblemText(const SetupPage& page) {
  QString out;
  for (const Diagnostic& d : page.problems()) out += QString::fromStdString(d.format("job")) + "\n";
  return out;
}

}  // namespace traindeck::test_support
