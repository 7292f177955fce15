// A run the app controls, wherever it executes: the one interface every page and the window use
// for Stop, Kill and "is it still going". LocalJob is the first kind (a supervisor on this
// machine); remote kinds follow. A job belongs to one run directory for its whole life, lives in
// the GUI thread, and is made and owned by the JobController.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

namespace traindeck {

class Job : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Starting, Running, Stopping, Finished };
  Q_ENUM(State)

  using QObject::QObject;

  virtual State state() const = 0;
  virtual QString runDir() const = 0;
  // Asks every rank to checkpoint and end (status "stopped"); nothing when not running.
  virtual void stop() = 0;
  // Ends the run at once, without a checkpoint; nothing when it has ended.
  virtual void kill() = 0;
  // The last lines the run's launcher printed (not the ranks' logs), oldest first.
  virtual QStringList recentOutput() = 0;
  // How the run is reached: empty for a run on this machine; for a remote one "following",
  // "reconnecting (link lost at 10:42:07)", "host unreachable since 10:42: ...".
  virtual QString linkText() const { return {}; }

  // Starting, running or stopping: there is something to stop or kill.
  static bool isActive(State s) { return s == State::Starting || s == State::Running || s == State::Stopping; }
  bool isActive() const { return isActive(state()); }

 signals:
  void stateChanged(traindeck::Job::State state);
  // 0 when run.json says finished or stopped, 1 failed, -1 when it says neither (killed).
  void finished(int exitCode);
  void failedToStart(const QString& reason);
  void linkTextChanged(const QString& text);
};

}  // namespace traindeck
