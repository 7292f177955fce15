// A run's processes as one value, wherever they run: a supervisor on this machine, a supervisor on
// an SSH host (pid, start time, boot id), a Slurm job behind a login node, or a folder only
// watched. It alone answers "alive?", does Stop and Kill, and judges the end by the one end rule
// (run_end_rule.h) with its own words for a death: no job or follower branches on the place. The
// job that holds it makes it once (remoteRunProcess, LocalJob) and outlives it. GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include "run_end_rule.h"

namespace traindeck {

class RunProcess : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  // Whether its processes may still write, given what the last look at the host saw of the
  // supervisor (a Slurm job ignores it: its queue says).
  virtual bool lives(bool supervisorSeenAlive) const = 0;
  // Asks every rank to checkpoint and end; Kill ends it at once. Both remember what was asked,
  // so that a verdict written later says it was you.
  virtual void stop() = 0;
  virtual void kill() = 0;
  // Why Stop and Kill do nothing for it (a watched run), or empty.
  virtual QString stopRefusal() const { return {}; }
  // Whether the run is the app's: it may write its verdict and keeps its checkpoints here. A
  // watched run is not (someone else started it).
  virtual bool isOurs() const { return true; }
  // Files the place writes into the run folder, copied home with the run's own (a Slurm job's
  // slurm-<id>.out).
  virtual QStringList ownFiles() const { return {}; }
  // Starts and ends its own following where it has one (a Slurm job's queue).
  virtual void follow() {}
  virtual void unfollow() {}
  // run.json has said for `endedForMs` that the run ended (while its processes live): a place
  // that learns its processes' end slowly asks sooner.
  virtual void runSaysEnded(qint64 endedForMs) { (void)endedForMs; }
  // How long a supervisor may outlive its run's verdict before the run ends anyway (-1: wait).
  virtual qint64 endGraceMs() const { return kSupervisorGraceMs; }
  // The end rule over what a look saw, with this place's knowledge of a death.
  RunEnd judge(RunSighting seen) const;
  // The sentence written into run.json with a WriteVerdict, and with NeverStarted.
  virtual QString verdictReason(const RunEnd& end) const = 0;
  virtual QString neverStartedReason(const QString& supervisorSaid) const = 0;

  RunAsked asked() const { return m_asked; }

  static constexpr qint64 kSupervisorGraceMs = 30000;  // after run.json says it ended

 signals:
  void outputLine(const QString& line);
  // A Stop could not be delivered: Stop may be pressed again.
  void stopNotDelivered();
  // Something the end rule reads changed (a Slurm job left the queue): look again now.
  void lookAgain();
  // The place's own state in words for the link text ("pending: waiting for resources").
  void stateWords(const QString& words);
  // It can never run as asked (a Slurm job pending for a reason that never passes): cancelled.
  void cannotRun(const QString& sentence);

 protected:
  virtual PlaceDeath death() const { return PlaceDeath::Unknown; }
  RunAsked m_asked = RunAsked::Nothing;
};

}  // namespace traindeck
