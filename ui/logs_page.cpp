#include "logs_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSyntaxHighlighter>
#include <QVBoxLayout>
#include <set>

namespace traindeck {

namespace {

// Colours a line by the level word after its timestamp ("... error: ...", "... warn: ...").
class LevelHighlighter : public QSyntaxHighlighter {
 public:
  using QSyntaxHighlighter::QSyntaxHighlighter;

 protected:
  void highlightBlock(const QString& text) override {
    QTextCharFormat format;
    if (text.contains(QLatin1String(" error: ")) || text.startsWith(QLatin1String("error: "))) {
      format.setForeground(QColor(214, 39, 40));
      format.setFontWeight(QFont::Bold);
    } else if (text.contains(QLatin1String(" warn: "))) {
      format.setForeground(QColor(200, 130, 0));
    } else {
      return;
    }
    setFormat(0, static_cast<int>(text.size()), format);
  }
};

constexpr int kFailureContextLines = 20;

}  // namespace

LogsPage::LogsPage(QWidget* parent) : QWidget(parent) {
  setObjectName("logsPage");
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Rank:"), this));
  m_rankChooser = new QComboBox(this);
  m_rankChooser->setObjectName("rankFilter");
  m_rankChooser->addItem(tr("All ranks"), -1);
  m_rankChooser->setToolTip(tr("Show one rank's log, or every rank's interleaved."));
  controls->addWidget(m_rankChooser);
  m_follow = new QCheckBox(tr("Follow"), this);
  m_follow->setObjectName("follow");
  m_follow->setChecked(true);
  m_follow->setToolTip(tr("Keep the newest lines in view as they arrive."));
  controls->addWidget(m_follow);
  controls->addStretch(1);
  m_search = new QLineEdit(this);
  m_search->setObjectName("search");
  m_search->setPlaceholderText(tr("Search (Enter: next, Shift+Enter: previous)"));
  m_search->setClearButtonEnabled(true);
  m_search->setToolTip(tr("Find text in the shown lines."));
  controls->addWidget(m_search, 1);
  layout->addLayout(controls);

  m_banner = new QLabel(this);
  m_banner->setObjectName("failureBanner");
  m_banner->setWordWrap(true);
  m_banner->setStyleSheet(
      "QLabel { background: rgba(214, 39, 40, 40); border: 1px solid rgb(214, 39, 40); padding: 6px; }");
  m_banner->hide();
  layout->addWidget(m_banner);

  m_view = new QPlainTextEdit(this);
  m_view->setObjectName("logView");
  m_view->setReadOnly(true);
  m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_view->setMaximumBlockCount(200000);  // bounded memory for very long logs
  new LevelHighlighter(m_view->document());
  layout->addWidget(m_view, 1);

  connect(m_rankChooser, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setRankFilter(m_rankChooser->itemData(index).toInt()); });
  connect(m_search, &QLineEdit::returnPressed, this,
          [this] { findNext(m_search->text(), QGuiApplication::keyboardModifiers() & Qt::ShiftModifier); });
}

void LogsPage::appendLines(const QVector<LogEntry>& lines) {
  std::set<int> known;
  for (int i = 1; i < m_rankChooser->count(); ++i) known.insert(m_rankChooser->itemData(i).toInt());
  const bool atEnd = m_view->verticalScrollBar()->value() == m_view->verticalScrollBar()->maximum();
  for (const LogEntry& line : lines) {
    m_lines.push_back(line);
    if (!known.count(line.rank)) {
      known.insert(line.rank);
      int at = 1;
      while (at < m_rankChooser->count() && m_rankChooser->itemData(at).toInt() < line.rank) ++at;
      m_rankChooser->insertItem(at, tr("Rank %1").arg(line.rank), line.rank);
    }
    if (m_failedRank < 0 && accepts(line)) m_view->appendPlainText(format(line));
  }
  if (m_failedRank >= 0) rebuild();
  if (m_follow->isChecked() || atEnd) m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->maximum());
}

void LogsPage::clear() {
  m_lines.clear();
  m_failedRank = -1;
  m_banner->hide();
  while (m_rankChooser->count() > 1) m_rankChooser->removeItem(1);
  m_view->clear();
}

void LogsPage::showFailure(int rank, const QString& reason) {
  m_failedRank = rank;
  m_banner->setText(tr("<b>The run failed:</b> %1").arg(reason.toHtmlEscaped()));
  m_banner->show();
  rebuild();
}

void LogsPage::setRankFilter(int rank) {
  m_rankFilter = rank;
  const int index = m_rankChooser->findData(rank);
  if (index >= 0 && index != m_rankChooser->currentIndex()) m_rankChooser->setCurrentIndex(index);
  rebuild();
}

bool LogsPage::findNext(const QString& text, bool backward) {
  if (text.isEmpty()) return false;
  const auto flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
  if (m_view->find(text, flags)) return true;
  QTextCursor wrap = m_view->textCursor();  // wrap around once
  wrap.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
  m_view->setTextCursor(wrap);
  return m_view->find(text, flags);
}

QString LogsPage::visibleText() const {
  return m_view->toPlainText();
}

bool LogsPage::accepts(const LogEntry& entry) const {
  return m_rankFilter < 0 || entry.rank == m_rankFilter;
}

QString LogsPage::format(const LogEntry& entry) const {
  return m_rankFilter < 0 ? QStringLiteral("[%1] %2").arg(entry.rank).arg(entry.text) : entry.text;
}

void LogsPage::rebuild() {
  QStringList text;
  if (m_failedRank >= 0) {
    // The failing rank's last lines first, then everything the filter shows.
    QVector<const LogEntry*> last;
    for (const LogEntry& e : m_lines)
      if (e.rank == m_failedRank) last.push_back(&e);
    if (last.size() > kFailureContextLines) last.remove(0, last.size() - kFailureContextLines);
    text << tr("── last lines of rank %1 ──").arg(m_failedRank);
    for (const LogEntry* e : last) text << QStringLiteral("[%1] %2").arg(e->rank).arg(e->text);
    text << tr("── all lines ──");
  }
  for (const LogEntry& e : m_lines)
    if (accepts(e)) text << format(e);
  m_view->setPlainText(text.join('\n'));
  if (m_failedRank < 0 && m_follow->isChecked())
    m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->maximum());
}

}  // namespace traindeck
