// A folder's signature looks one level down because the readers do: Keras's train/ and
// validation/, Hugging Face's checkpoint-N/, W&B's run file beside files/.
#include "imported_runs.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "imports/import_error.h"
#include "runlog/run_paths.h"

namespace traindeck {

namespace {

void importSignatureAdd(ImportSignature& sig, const QFileInfo& file) {
  sig.bytes += file.size();
  sig.newestMs = std::max(sig.newestMs, file.lastModified().toMSecsSinceEpoch());
  ++sig.files;
}

void importFirstTime(double& first, const std::vector<double>& times) {
  for (double t : times)
    if (std::isfinite(t) && !(t >= first)) first = t;
}

// Where an absolute address may part into a file or folder and a key: at each '#' whose left
// part exists, the longest left part first. A key may hold '#' (an old Trackio run_name "exp#2",
// a TensorBoard file's suffix) as may the folders above the file ("exp#1/"), so neither the
// first nor the last '#' is right by itself.
QList<qsizetype> importedRunSplits(const QString& whole) {
  QList<qsizetype> splits;
  for (qsizetype at = whole.lastIndexOf('#'); at > 0; at = whole.lastIndexOf('#', at - 1))
    if (QFileInfo::exists(whole.left(at))) splits << at;
  return splits;
}

}  // namespace

QString importedRunAddress(const RunSource& source) {
  const QString path = QFileInfo(QString::fromStdString(source.path.string())).absoluteFilePath();
  return source.key.empty() ? path : path + '#' + QString::fromStdString(source.key);
}

QString importedRunPath(const QString& address) {
  const QString whole = QFileInfo(address).absoluteFilePath();
  if (QFileInfo::exists(whole)) return whole;
  if (const QList<qsizetype> splits = importedRunSplits(whole); !splits.isEmpty()) return whole.left(splits.front());
  const qsizetype hash = whole.lastIndexOf('#');  // gone: a path that does not exist either
  return hash > 0 ? whole.left(hash) : whole;
}

std::optional<RunSource> importedRunSource(const QString& address) {
  const QString whole = QFileInfo(address).absoluteFilePath();
  QList<qsizetype> splits = importedRunSplits(whole);
  if (QFileInfo::exists(whole)) splits.prepend(whole.size());  // the whole address: no key
  for (const qsizetype at : splits) {
    const QString path = whole.left(at);
    const std::string key = whole.mid(at + 1).toStdString();
    if (isTrainDeckRunFolder(path)) continue;
    try {
      for (RunSource& source : findRuns(path.toStdString()))
        if (source.kind != SourceKind::TrainDeck && source.key == key &&
            QFileInfo(QString::fromStdString(source.path.string())).absoluteFilePath() == path)
          return std::move(source);
    } catch (const std::exception&) {
      // A folder that cannot be listed holds no run we can read.
    }
  }
  return std::nullopt;
}

QString sourceBadge(SourceKind kind) {
  const std::string_view badge = sourceKindBadge(kind);  // the importer table's
  return QString::fromUtf8(badge.data(), static_cast<qsizetype>(badge.size()));
}

bool isTrainDeckRunFolder(const QString& dir) {
  return QFileInfo::exists(QDir(dir).filePath(run_file::kRunJson)) ||
         QFileInfo::exists(QDir(dir).filePath(run_file::kRemoteRecord));
}

ImportSignature importSignature(const QString& path) {
  ImportSignature sig;
  const QFileInfo info(path);
  if (!info.exists()) return sig;
  sig.bytes = 0;
  if (!info.isDir()) {
    importSignatureAdd(sig, info);
    return sig;
  }
  const QDir dir(path);
  for (const QFileInfo& entry : dir.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
    if (entry.isFile()) {
      importSignatureAdd(sig, entry);
      continue;
    }
    if (entry.isSymLink()) continue;
    for (const QFileInfo& inner : QDir(entry.absoluteFilePath()).entryInfoList(QDir::Files))
      importSignatureAdd(sig, inner);
  }
  return sig;
}

RunSummary importedRunSummary(const ImportedRun& run, const QString& address, const QString& listName) {
  RunSummary s;
  s.id = listName;
  s.name = QString::fromStdString(run.name);
  s.path = address;
  const TrainColumns& train = run.metrics.train;
  double first = std::nan("");
  importFirstTime(first, train.time);
  importFirstTime(first, run.metrics.eval.time);
  for (const ScalarSeries& scalar : run.scalars) importFirstTime(first, scalar.time);
  if (std::isfinite(first))
    s.created = QDateTime::fromMSecsSinceEpoch(std::llround(first * 1000))
                    .toUTC()
                    .toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ"));
  for (std::int64_t step : train.step) s.step = std::max<qint64>(s.step, step);
  for (std::int64_t step : run.metrics.eval.step) s.step = std::max<qint64>(s.step, step);
  for (const ScalarSeries& scalar : run.scalars)
    for (std::int64_t step : scalar.step) s.step = std::max<qint64>(s.step, step);
  for (std::size_t i = train.size(); i-- > 0;)
    if (std::isfinite(train.loss[i])) {
      s.lastLoss = train.loss[i];
      break;
    }
  return s;
}

FlatConfig importedRunConfig(const ImportedRun& run) {
  FlatConfig config;
  config.entries = run.config;
  return config;
}

}  // namespace traindeck
