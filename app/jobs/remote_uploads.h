// A job's local files for a remote run: each path field of the config (data.train, data.val,
// data.vocab, data.merges, model.init_from) that names something here is planned as an upload
// into the remote work folder's content-addressed cache, data/<sha256>/<name>, and the field is
// rewritten to that remote path. A path written "remote:/..." names data already on the host
// and is used as it is. Globs are refused (name the prepared folder instead).
#pragma once

#include <QMap>
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
  // Each field that named something here: its absolute local path (what a run continued on
  // another host uploads again; remote: fields are not in it).
  QMap<QString, QString> localPaths;
  QString error;  // a sentence naming the field, when a path cannot be planned
};

// Rewrites `config`'s path fields for the host (paths relative to `baseDir`, as the trainer
// reads them) and says what to upload. Reads every file once (for its hash).
UploadPlan planUploads(RunConfig& config, const QString& baseDir, const QString& remoteWorkDir);

// The reverse, for a run that continues on another host: `config` is the run's config.yaml as
// its last host resolved it; each field in `localPaths` (UploadPlan::localPaths, kept in the
// mirror's remote.json) names its local path again, and any other path field is data that was
// on that host already, written "remote:..." so that it is used as it is. Returns those fields
// ("data.train /data/x"), which the next host must hold at the same place.
QStringList restoreLocalPaths(RunConfig& config, const QMap<QString, QString>& localPaths);

}  // namespace traindeck
