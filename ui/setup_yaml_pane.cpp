// The editor keeps no history of its own (its undo is off): Ctrl+Z, its menu and the buttons move
// in the document's, which every view follows at once. A text from the document replaces only
// the span that differs, so the cursor and the scroll position stay where they were.
#include "setup_yaml_pane.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "job_document.h"
#include "problem_colors.h"
#include "problem_marks.h"

namespace traindeck {

SetupYamlPane::SetupYamlPane(JobDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(tr("YAML")), this));
  top->addStretch(1);
  m_undo = new QToolButton(this);
  m_undo->setObjectName("yamlUndo");
  m_undo->setText(tr("Undo"));
  m_undo->setToolTip(
      tr("Undo the last change to the job, made here, in the form, in Where to run or by Prepare… "
         "(Ctrl+Z in the YAML): the form and the YAML share one history."));
  m_redo = new QToolButton(this);
  m_redo->setObjectName("yamlRedo");
  m_redo->setText(tr("Redo"));
  m_redo->setToolTip(tr("Redo what Undo took back (Ctrl+Shift+Z in the YAML)."));
  top->addWidget(m_undo);
  top->addWidget(m_redo);
  layout->addLayout(top);
  m_yaml = new QPlainTextEdit(this);
  m_yaml->setObjectName("yaml");
  m_yaml->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_yaml->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_yaml->setUndoRedoEnabled(false);
  m_yaml->setToolTip(tr("The job as YAML, as traindeck-train reads it; edits here update the form."));
  layout->addWidget(m_yaml, 1);
  m_error = new QLabel(this);
  m_error->setObjectName("yamlError");
  m_error->setWordWrap(true);
  m_error->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(kErrorColor.name()));
  m_error->hide();
  layout->addWidget(m_error);
  m_historyNote = new QLabel(this);
  m_historyNote->setObjectName("yamlHistory");
  m_historyNote->setWordWrap(true);
  m_historyNote->setTextFormat(Qt::PlainText);
  m_historyNote->setForegroundRole(QPalette::PlaceholderText);
  m_historyNote->hide();
  layout->addWidget(m_historyNote);

  m_debounce = new QTimer(this);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(300);
  connect(m_debounce, &QTimer::timeout, this, &SetupYamlPane::handOver);
  connect(m_yaml, &QPlainTextEdit::textChanged, this, [this] {
    if (m_settingText) return;
    m_historyNote->hide();
    m_debounce->start();
    showUndoState();
  });
  m_yaml->installEventFilter(this);
  m_yaml->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_yaml, &QPlainTextEdit::customContextMenuRequested, this, &SetupYamlPane::showContextMenu);
  connect(m_undo, &QToolButton::clicked, this, [this] { moveInHistory(true); });
  connect(m_redo, &QToolButton::clicked, this, [this] { moveInHistory(false); });
  connect(m_document, &JobDocument::editStarting, this, &SetupYamlPane::flush);
  connect(m_document, &JobDocument::changed, this, &SetupYamlPane::showDocument);
  connect(m_document, &JobDocument::historyMoved, this, &SetupYamlPane::showHistoryMove);
  showDocument();
}

void SetupYamlPane::flush() {
  if (!m_debounce->isActive()) return;
  m_debounce->stop();
  handOver();
}

void SetupYamlPane::handOver() {
  m_shownText = m_yaml->toPlainText();
  m_document->setText(m_shownText);
}

QString SetupYamlPane::historyNote() const {
  return m_historyNote->isHidden() ? QString() : m_historyNote->text();
}

void SetupYamlPane::goToLine(int line) {
  m_yaml->setTextCursor(QTextCursor(m_yaml->document()->findBlockByNumber(line - 1)));
  m_yaml->setFocus(Qt::OtherFocusReason);
}

void SetupYamlPane::moveInHistory(bool undo) {
  flush();
  if (undo)
    m_document->undo();
  else
    m_document->redo();
}

bool SetupYamlPane::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_yaml && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) {
      moveInHistory(key->matches(QKeySequence::Undo));
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void SetupYamlPane::showContextMenu(const QPoint& at) {
  QMenu* menu = m_yaml->createStandardContextMenu(at);
  for (QAction* action : menu->actions()) {  // the document's Undo and Redo, not the editor's
    const bool undo = action->objectName() == "edit-undo";
    if (!undo && action->objectName() != "edit-redo") continue;
    disconnect(action, &QAction::triggered, nullptr, nullptr);
    action->setEnabled(undo ? m_undo->isEnabled() : m_redo->isEnabled());
    connect(action, &QAction::triggered, this, [this, undo] { moveInHistory(undo); });
  }
  menu->exec(m_yaml->viewport()->mapToGlobal(at));
  delete menu;
}

void SetupYamlPane::showDocument() {
  m_historyNote->hide();                    // a history move shows it again right after
  if (m_document->text() != m_shownText) {  // a change made elsewhere (or a new text): typing not read is dropped
    m_debounce->stop();
    showText(m_document->text());
  }
  showProblems();
  showUndoState();
}

void SetupYamlPane::showText(const QString& text) {
  m_shownText = text;
  const QString old = m_yaml->toPlainText();
  if (old == text) return;
  qsizetype head = 0, tail = 0;
  while (head < old.size() && head < text.size() && old[head] == text[head]) ++head;
  while (tail < old.size() - head && tail < text.size() - head &&
         old[old.size() - 1 - tail] == text[text.size() - 1 - tail])
    ++tail;
  const int scroll = m_yaml->verticalScrollBar()->value();
  m_settingText = true;
  QTextCursor cursor(m_yaml->document());
  cursor.setPosition(static_cast<int>(head));
  cursor.setPosition(static_cast<int>(old.size() - tail), QTextCursor::KeepAnchor);
  cursor.insertText(text.mid(head, text.size() - head - tail));
  m_settingText = false;
  m_yaml->verticalScrollBar()->setValue(scroll);
}

void SetupYamlPane::showHistoryMove(bool undone, const QStringList& changes) {
  constexpr int kShown = 4;
  QString said = changes.join(", ");
  if (changes.size() > kShown)
    said = changes.mid(0, kShown - 1).join(", ") + tr(" and %n more", nullptr, int(changes.size()) - kShown + 1);
  m_historyNote->setText(said.isEmpty() ? QString() : (undone ? tr("Undone: %1") : tr("Redone: %1")).arg(said));
  m_historyNote->setVisible(!said.isEmpty());
}

void SetupYamlPane::showProblems() {
  QString fileError;
  for (const Diagnostic& d : m_document->problems()) {
    if (d.severity == Severity::Error && d.path.empty() && fileError.isEmpty())
      fileError = (d.line > 0 ? tr("Line %1: ").arg(d.line) : QString()) + QString::fromStdString(d.message) +
                  tr(" — the form shows no values until it can be read.");
  }
  m_yaml->setExtraSelections(problemMarks(m_yaml->document(), m_document->problems()));
  m_error->setText(fileError);
  m_error->setVisible(!fileError.isEmpty());
}

void SetupYamlPane::showUndoState() {
  m_undo->setEnabled(m_document->canUndo() || m_debounce->isActive());
  m_redo->setEnabled(m_document->canRedo() && !m_debounce->isActive());
}

}  // namespace traindeck
