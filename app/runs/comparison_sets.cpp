#include "comparison_sets.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace traindeck {

namespace {
constexpr int kVersion = 1;
}

ComparisonSets::ComparisonSets(const QString& runsRoot) : m_root(runsRoot) {}

QString ComparisonSets::filePath() const {
  return QDir(m_root).filePath(QStringLiteral("comparisons.json"));
}

QString ComparisonSets::load() {
  m_sets.clear();
  QFile file(filePath());
  if (!file.exists()) return {};
  if (!file.open(QIODevice::ReadOnly)) return QObject::tr("Cannot read %1: %2").arg(filePath(), file.errorString());
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
  const QString fix = QObject::tr("fix or delete the file; saving a set then writes a new one");
  if (doc.isNull())
    return QObject::tr("%1 is not valid JSON (%2 at byte %3): %4")
        .arg(filePath(), parseError.errorString())
        .arg(parseError.offset)
        .arg(fix);
  const QJsonObject root = doc.object();
  if (root.value(QStringLiteral("version")).toInt() != kVersion || !root.value(QStringLiteral("sets")).isArray())
    return QObject::tr("%1 is not a comparison-sets file of version %2: %3").arg(filePath()).arg(kVersion).arg(fix);
  const QDir rootDir(m_root);
  for (const QJsonValue& value : root.value(QStringLiteral("sets")).toArray()) {
    const QJsonObject object = value.toObject();
    ComparisonSet set{.name = object.value(QStringLiteral("name")).toString(), .runDirs = {}};
    if (set.name.isEmpty()) continue;
    for (const QJsonValue& run : object.value(QStringLiteral("runs")).toArray())
      set.runDirs << QDir::cleanPath(rootDir.absoluteFilePath(run.toString()));
    const QJsonObject colours = object.value(QStringLiteral("colours")).toObject();
    for (auto it = colours.begin(); it != colours.end(); ++it)
      if (const QColor colour = QColor::fromString(it.value().toString()); colour.isValid())
        set.colours.insert(QDir::cleanPath(rootDir.absoluteFilePath(it.key())), colour);
    m_sets.push_back(set);
  }
  return {};
}

const ComparisonSet* ComparisonSets::find(const QString& name) const {
  for (const ComparisonSet& set : m_sets)
    if (set.name == name) return &set;
  return nullptr;
}

QString ComparisonSets::save(const ComparisonSet& set) {
  if (set.name.trimmed().isEmpty()) return QObject::tr("A comparison set needs a name");
  bool replaced = false;
  for (ComparisonSet& existing : m_sets)
    if (existing.name == set.name) {
      existing = set;
      replaced = true;
    }
  if (!replaced) m_sets.push_back(set);
  return write();
}

QString ComparisonSets::remove(const QString& name) {
  const auto removed = m_sets.removeIf([&](const ComparisonSet& set) { return set.name == name; });
  return removed ? write() : QString();
}

QString ComparisonSets::write() const {
  const QDir rootDir(m_root);
  QJsonArray sets;
  for (const ComparisonSet& set : m_sets) {
    const auto stored = [&rootDir](const QString& dir) {
      const QString relative = rootDir.relativeFilePath(dir);
      return relative.startsWith(QLatin1String("..")) ? dir : relative;
    };
    QJsonArray runs;
    for (const QString& dir : set.runDirs) runs.append(stored(dir));
    QJsonObject object{{QStringLiteral("name"), set.name}, {QStringLiteral("runs"), runs}};
    QJsonObject colours;
    for (auto it = set.colours.begin(); it != set.colours.end(); ++it)
      colours.insert(stored(it.key()), it.value().name());
    if (!colours.isEmpty()) object.insert(QStringLiteral("colours"), colours);
    sets.append(object);
  }
  const QJsonObject root{{QStringLiteral("version"), kVersion}, {QStringLiteral("sets"), sets}};
  QDir().mkpath(m_root);
  QSaveFile file(filePath());
  if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(root).toJson()) < 0 || !file.commit())
    return QObject::tr("Cannot write %1: %2").arg(filePath(), file.errorString());
  return {};
}

}  // namespace traindeck
