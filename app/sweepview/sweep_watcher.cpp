#include "sweep_watcher.h"

namespace traindeck {

SweepWatcher::SweepWatcher(QObject* parent) : QObject(parent) {
  m_timer.setInterval(kPollMs);
  connect(&m_timer, &QTimer::timeout, this, &SweepWatcher::poll);
}

void SweepWatcher::open(const QString& sweepDir) {
  m_dir = sweepDir;
  m_reader = std::make_unique<SweepFolderReader>();  // a new sweep: nothing parsed of it yet
  m_view.reset();
  m_signature.clear();
  if (m_dir.isEmpty()) {
    m_timer.stop();
    return;
  }
  readNow();
  m_timer.start();
}

void SweepWatcher::poll() {
  if (m_dir.isEmpty() || !m_view) return;
  if (m_reader->signature(m_dir, *m_view) != m_signature) readNow();
}

void SweepWatcher::readNow() {
  auto view = std::make_shared<const SweepView>(m_reader->read(m_dir));
  m_view = view;
  m_signature = m_reader->signature(m_dir, *view);
  emit sweepAvailable(view);
}

}  // namespace traindeck
