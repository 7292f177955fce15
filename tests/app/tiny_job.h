// tests/cli/make_tiny_job.sh from the app's Qt tests: a corpus, its dataset and DIR/job.yaml for
// a tiny single-rank CPU job. Needs TRAINDECK_TEST_DATA_DIR and TRAINDECK_TRAIN_BIN.
#pragma once

#include <QProcess>
#include <QString>

namespace traindeck::test_support {

inline bool makeTinyJob(const QString& dir) {
  QProcess make;
  make.start("sh", {QStringLiteral(TRAINDECK_TEST_DATA_DIR) + "/cli/make_tiny_job.sh", TRAINDECK_TRAIN_BIN, dir});
  return make.waitForFinished(120000) && make.exitStatus() == QProcess::NormalExit && make.exitCode() == 0;
}

}  // namespace traindeck::test_support
