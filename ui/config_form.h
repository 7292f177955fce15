// The Setup page's form: one editor per config field, generated from configFieldInfos() and
// grouped by section. It shows values and problems it is given and reports edits as YAML
// values; it never holds a RunConfig of its own.
#pragma once

#include <QHash>
#include <QMap>
#include <QScrollArea>
#include <QSet>
#include <functional>

#include "config/diagnostic.h"
#include "config/run_config.h"

class QLabel;

namespace traindeck {

class ConfigForm : public QScrollArea {
  Q_OBJECT
 public:
  explicit ConfigForm(QWidget* parent = nullptr);

  // Shows `config`, except in the fields named in `keep` (being typed in, or unreadable in
  // the YAML), whose editors keep what they show.
  void setConfig(const RunConfig& config, const QSet<QString>& keep = {});
  // Marks each problem at its field (and at the fields its message names); clears the rest.
  void setProblems(const Diagnostics& problems);
  QWidget* editor(const QString& path) const { return m_editors.value(path); }
  void focusField(const QString& path);
  // A line of plain text under the field (empty: none), e.g. where the app really puts runs.
  void setFieldNote(const QString& path, const QString& note);
  QString fieldNote(const QString& path) const;
  // How Browse… asks for a path (tests answer without a dialog); default: a file dialog.
  using PathChooser = std::function<QString(const QString& path, bool folder, const QString& current)>;
  void setPathChooser(PathChooser chooser) { m_chooser = std::move(chooser); }

 signals:
  // The user changed a field; `valueYaml` is its new value as YAML text.
  void fieldEdited(const QString& path, const QString& valueYaml);
  void prepareRequested();  // Prepare… beside data.train
  void gpt2FilesRequested();  // Get… beside data.vocab

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct Row {
    QWidget* editor = nullptr;
    QLabel* icon = nullptr;
    QLabel* note = nullptr;  // under the field, hidden while empty
    QString baseTip;
  };
  QWidget* makeEditor(const QString& path, const QString& type, const QString& doc, QWidget* parent);
  void setEditorValue(QWidget* editor, const QString& valueYaml);
  void markRow(const QString& path, Severity severity, const QStringList& messages);

  QMap<QString, QWidget*> m_editors;
  QHash<QString, Row> m_rows;
  PathChooser m_chooser;
};

}  // namespace traindeck
