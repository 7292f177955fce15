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

void LogsPage::showLines(const LogStore& store, std::shared_ptr<const void> owner) {
  const bool sameStore = m_store == &store && m_generation == store.generation();
  const std::size_t from = sameStore ? store.indexFrom(m_shownEnd) : 0;
  m_store = &store;
  if (owner) m_owner = std::move(owner);
  m_generation = store.generation();
  m_shownEnd = store.endSequence();
  addRanks(from);
  if (!sameStore || m_failedRank >= 0) {
    rebuild();
    return;
  }
  const bool atEnd = m_view->verticalScrollBar()->value() == m_view->verticalScrollBar()->maximum();
  for (std::size_t i = from; i < store.size(); ++i)
    if (accepts(store.at(i))) m_view->appendPlainText(format(store.at(i)));
  if (m_follow->isChecked() || atEnd) m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->maximum());
}

void LogsPage::addRanks(std::size_t fromIndex) {
  std::set<int> known;
  for (int i = 1; i < m_rankChooser->count(); ++i) known.insert(m_rankChooser->itemData(i).toInt());
  for (std::size_t i = fromIndex; i < m_store->size(); ++i) {
    const int rank = m_store->at(i).rank;
    if (!known.insert(rank).second) continue;
    int at = 1;
    while (at < m_rankChooser->count() && m_rankChooser->itemData(at).toInt() < rank) ++at;
    m_rankChooser->insertItem(at, isJobOutput(rank) ? tr("Slurm job output") : tr("Rank %1").arg(rank), rank);
  }
}

void LogsPage::clear() {
  m_store = nullptr;
  m_owner.reset();
  m_shownEnd = m_generation = 0;
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

bool LogsPage::accepts(const LogLine& line) const {
  return m_rankFilter < 0 || line.rank == m_rankFilter;
}

QString LogsPage::format(const LogLine& line) const {
  if (m_rankFilter >= 0) return line.text;
  return isJobOutput(line.rank) ? QStringLiteral("[job] %1").arg(line.text)
                                : QStringLiteral("[%1] %2").arg(line.rank).arg(line.text);
}

void LogsPage::rebuild() {
  QStringList text;
  const std::size_t count = m_store ? m_store->size() : 0;
  if (m_failedRank >= 0) {
    // The failing rank's last lines first, then everything the filter shows.
    QVector<const LogLine*> last;
    for (std::size_t i = 0; i < count; ++i)
      if (m_store->at(i).rank == m_failedRank) last.push_back(&m_store->at(i));
    if (last.size() > kFailureContextLines) last.remove(0, last.size() - kFailureContextLines);
    text << tr("── last lines of rank %1 ──").arg(m_failedRank);
    for (const LogLine* e : last) text << QStringLiteral("[%1] %2").arg(e->rank).arg(e->text);
    text << tr("── all lines ──");
  }
  for (std::size_t i = 0; i < count; ++i)
    if (accepts(m_store->at(i))) text << format(m_store->at(i));
  m_view->setPlainText(text.join('\n'));
  if (m_failedRank < 0 && m_follow->isChecked())
    m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->maximum());
}

}  // namespace traindeck
