// Benchmarks that wait for the app's threads (followers, the run index, the SSH worker) run the
// event loop as the app does: asleep between events. processEvents(AllEvents, ms) returns at once
// when nothing is pending, so a loop of it spins a core that those threads (and sshd, the helper)
// need, and the figures would measure that contention instead of the app.
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <functional>

namespace traindeck::test_support {

// Runs the event loop until `done` or `ms` have passed; a tick every `tickMs` wakes it to look at
// `done` when no event comes. True when `done`.
inline bool runEventsUntil(const std::function<bool()>& done, int ms, int tickMs = 5) {
  QElapsedTimer waited;
  waited.start();
  QTimer tick;
  tick.start(tickMs);
  while (!done()) {
    if (waited.elapsed() >= ms) return false;
    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
  }
  return true;
}

}  // namespace traindeck::test_support
