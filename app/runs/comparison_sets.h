// Named comparison sets ("lr sweep": these five runs), kept in <runs root>/comparisons.json
// so that they travel with the runs. Runs inside the root are stored by folder name, others by
// absolute path, each with the colour picked for it by hand, if any. Written atomically (QSaveFile); a file that cannot
// be read is reported, never overwritten until the user saves again.
#pragma once

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

namespace traindeck {

struct ComparisonSet {
  QString name;
  QStringList runDirs;               // absolute
  QHash<QString, QColor> colours{};  // colours picked by hand, by run address (absolute)
};

class ComparisonSets {
 public:
  explicit ComparisonSets(const QString& runsRoot);

  QString filePath() const;
  // Reads the file; returns an error text (the file stays untouched) or empty. No file: no sets.
  QString load();
  const QVector<ComparisonSet>& sets() const { return m_sets; }
  const ComparisonSet* find(const QString& name) const;
  // Adds or replaces the set of that name and writes the file; returns an error text or empty.
  QString save(const ComparisonSet& set);
  QString remove(const QString& name);

 private:
  QString write() const;

  QString m_root;
  QVector<ComparisonSet> m_sets;
};

}  // namespace traindeck
