// A run the app controls, wherever it executes: the one interface every page and the window use
// for Stop, Kill and "is it still going". LocalJob is the first kind (a supervisor on this
// machine); remote kinds follow. A job belongs to one run directory for its whole life, lives in
// the GUI thread, and is made and owned by the JobController.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

namespace traindeck {

// One step of a start, as it went: times in ms since the start began; endedMs -1 while it runs.
struct BootstrapStep {
  QString name, detail;
  qint64 startedMs = 0, endedMs = -1;
};

// A start's steps on one host, so far (a job on several hosts has one per node, node 0 first).
struct HostStart {
  QString host;  // [user@]host[:port], as the target named it
  QVector<BootstrapStep> steps;
  qint64 sinceStartMs = 0;  // the clock the steps' times are on, now
};

class Job : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Starting, Running, Stopping, Finished };
  Q_ENUM(State)
  // How the run is reached. Here: on this machine, no link. Following: every host's link is up
  // and the run is mirrored. Ended: nothing is followed any more.
  enum class Link { Here, Connecting, Following, Reconnecting, Unreachable, Ended };
  Q_ENUM(Link)

  using QObject::QObject;

  virtual State state() const = 0;
  virtual QString runDir() const = 0;
  // Asks every rank to checkpoint and end (status "stopped"); nothing when not running.
  virtual void stop() = 0;
  // Ends the run at once, without a checkpoint; nothing when it has ended.
  virtual void kill() = 0;
  // Why stop() and kill() do nothing for this run whatever its state (a run started outside
  // TrainDeck and only watched is not ours to stop), or empty.
  virtual QString stopRefusal() const { return {}; }
  // The last lines the run's launcher printed (not the ranks' logs), oldest first.
  virtual QStringList recentOutput() = 0;
  // How the run is reached, for decisions; linkText() says it for display only (translated):
  // empty for a run on this machine; for a remote one "following", "link lost at 10:42:07,
  // reconnecting (try 3)", "host unreachable since 10:42: ...". linkLost() says whether the run
  // is out of reach for now (Reconnecting, Unreachable): pages then say so, not "running".
  virtual Link link() const { return Link::Here; }
  virtual QString linkText() const { return {}; }
  bool linkLost() const { return link() == Link::Reconnecting || link() == Link::Unreachable; }
  // What the place says of the run now, for the Monitor header and the run list: a Slurm job's
  // id and queue state in words ("Slurm job 17: pending: waiting for resources (expected to
  // start at 10:42)"); empty where the place has nothing to say.
  virtual QString placeText() const { return {}; }
  // The hosts it runs on, node 0 first; empty: this machine.
  virtual QStringList hosts() const { return {}; }
  // Its start's steps, one entry per host; empty for a run on this machine.
  virtual QVector<HostStart> startSteps() const { return {}; }

  // Starting, running or stopping: there is something to stop or kill.
  static bool isActive(State s) { return s == State::Starting || s == State::Running || s == State::Stopping; }
  bool isActive() const { return isActive(state()); }

 signals:
  void stateChanged(traindeck::Job::State state);
  // 0 when run.json says finished or stopped, 1 failed, -1 when it says neither (killed).
  void finished(int exitCode);
  void failedToStart(const QString& reason);
  void linkTextChanged(const QString& text);
  void placeTextChanged(const QString& text);
  // A start as it goes, on node `node` (0 for a job on one host): a step began, the step printed a
  // line (the build's progress), its upload moved.
  void stepStarted(int node, const QString& step, const QString& detail);
  void outputLine(int node, const QString& line);
  void transferProgress(int node, qint64 done, qint64 total);
};

}  // namespace traindeck
