// A job's local files for a remote run: each path field of the config (data.train, data.val,
// data.vocab, data.merges, model.init_from) that names something here is planned as an upload
// into the remote work folder's content-addressed cache, data/<sha256>/<name>, and the field is
// rewritten to that remote path. A path written "remote:/..." names data already on the host
// and is used as it is. Globs are refused (name the prepared folder instead).
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include "config/run_config.h"

namespace traindeck {

struct PlannedUpload {
  QString field;       // "data.train"
  QString localPath;   // absolute: a file, or a folder (its files, recursively)
  QStringList files;   // relative to localPath's folder ("train-000000.bin" or "demo/dataset.json")
  QString key;         // SHA-256 over the names and contents: the cache folder's name
  QString remoteDir;   // <work>/data/<key>: holds localPath's last component
  QString remotePath;  // what the field now says
};

struct UploadPlan {
  QVector<PlannedUpload> uploads;
  QString error;  // a sentence naming the field, when a path cannot be planned
};

// Rewrites `config`'s path fields for the host (paths relative to `baseDir`, as the trainer
// reads them) and says what to upload. Reads every file once (for its hash).
UploadPlan planUploads(RunConfig& config, const QString& baseDir, const QString& remoteWorkDir);

}  // namespace traindeck
