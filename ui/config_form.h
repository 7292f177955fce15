// The Setup page's form: one editor per config field, generated from configFieldInfos() and
// grouped by section. It shows values and problems it is given and reports edits as YAML
// values; it never holds a RunConfig of its own. While the YAML cannot be read it shows no values
// at all (never defaults, nor another file's), and says why.
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
  // the YAML), whose editors keep what they show. Ends the unreadable state.
  void setConfig(const RunConfig& config, const QSet<QString>& keep = {});
  // Marks each problem at its field (and at the fields its message names); clears the rest. A
  // problem with the file as a whole (an error without a path: the YAML cannot be read) empties
  // and disables every editor and says so above them, until setConfig.
  void setProblems(const Diagnostics& problems);
  bool showsValues() const { return !m_unreadable; }
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
  void showUnreadable(const Diagnostic& why);
  void showReadable();

  QMap<QString, QWidget*> m_editors;
  QHash<QString, Row> m_rows;
  QList<QWidget*> m_groups;            // disabled while the YAML cannot be read
  QLabel* m_unreadableNote = nullptr;  // above the groups: why the form shows no values
  bool m_unreadable = false;
  PathChooser m_chooser;
};

}  // namespace traindeck
