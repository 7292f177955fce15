// askAndWait: runs a function on another object's thread (the GUI thread, to show a dialog)
// and waits for its answer, giving up with a fallback answer when `giveUp` turns true. Used by
// the SSH threads for host key and password prompts; a plain BlockingQueuedConnection would
// deadlock if the GUI thread were waiting for the SSH thread at that moment (on shutdown).
#pragma once

#include <QMetaObject>
#include <QObject>
#include <QSemaphore>
#include <atomic>
#include <functional>
#include <memory>

namespace traindeck {

template <typename T>
T askAndWait(QObject* context, const std::function<T()>& fn, const std::atomic<bool>& giveUp, T fallback) {
  // Shared so that an answer arriving after we gave up lands somewhere valid.
  struct Slot {
    QSemaphore done;
    T value{};
  };
  auto slot = std::make_shared<Slot>();
  QMetaObject::invokeMethod(
      context,
      [slot, fn] {
        slot->value = fn();
        slot->done.release();
      },
      Qt::QueuedConnection);
  while (!slot->done.tryAcquire(1, 100))
    if (giveUp) return fallback;
  return slot->value;
}

}  // namespace traindeck
