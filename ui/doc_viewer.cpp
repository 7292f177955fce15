#include "doc_viewer.h"

#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QPushButton>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace traindeck {

DocViewer::DocViewer(QWidget* parent) : QDialog(parent) {
  setObjectName("docViewer");
  setModal(false);
  resize(900, 720);
  auto* layout = new QVBoxLayout(this);
  m_text = new QTextBrowser(this);
  m_text->setObjectName("docText");
  m_text->setOpenLinks(true);
  m_text->setOpenExternalLinks(true);  // http(s): the browser; a doc beside it: here
  layout->addWidget(m_text, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* back = buttons->addButton(tr("Back"), QDialogButtonBox::ActionRole);
  back->setEnabled(false);
  connect(m_text, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
  connect(back, &QPushButton::clicked, m_text, &QTextBrowser::backward);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  layout->addWidget(buttons);
  connect(m_text, &QTextBrowser::sourceChanged, this,
          [this](const QUrl& url) { setWindowTitle(tr("%1 — TrainDeck").arg(url.fileName())); });
}

void DocViewer::showFile(const QString& path) {
  m_text->setSource(QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()), QTextDocument::MarkdownResource);
  show();
  raise();
  activateWindow();
}

QString DocViewer::shownFile() const {
  return m_text->source().toLocalFile();
}

QString DocViewer::text() const {
  return m_text->toPlainText();
}

}  // namespace traindeck
