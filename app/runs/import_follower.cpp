#include "import_follower.h"

#include <QTimer>

#include "app_metatypes.h"

namespace traindeck {

ImportFollower::ImportFollower(RunSource source, QObject* parent)
    : QObject(parent), m_source(std::move(source)), m_path(QString::fromStdString(m_source.path.string())) {
  registerAppMetaTypes();
}

ImportFollower::~ImportFollower() = default;

void ImportFollower::start() {
  if (!m_timer) {
    m_timer = new QTimer(this);
    m_timer->setInterval(kPollMs);
    connect(m_timer, &QTimer::timeout, this, &ImportFollower::poll);
  }
  m_timer->start();
  poll();
}

void ImportFollower::poll() {
  const ImportSignature signature = importSignature(m_path);
  if (m_read && signature == m_signature) return;
  m_read = true;
  m_signature = signature;
  ImportedRead read;
  try {
    read.run = std::make_shared<ImportedRun>(readRun(m_source));
  } catch (const std::exception& e) {
    read.error = QString::fromUtf8(e.what());
  }
  emit runRead(read);
}

}  // namespace traindeck
