#include "run_actions.h"

#include <QCoreApplication>

#include "job.h"

namespace traindeck {

namespace {
QString tr(const char* text) {
  return QCoreApplication::translate("RunActions", text);
}
}  // namespace

RunActions runActions(const RunFacts& facts) {
  RunActions a;
  if (facts.imported) {  // its tool owns its files: TrainDeck shows and compares it, nothing more
    a.whyNoStop = tr("Another tool's run: TrainDeck only reads it");
    a.whyNoContinue = a.whyNoStop;
    return a;
  }
  const bool driven = facts.job != nullptr && facts.job->isActive();
  const bool live = driven || (facts.status && isLive(*facts.status));
  const QString refusal = facts.job != nullptr ? facts.job->stopRefusal() : QString();
  a.stop = driven && facts.job->state() != Job::State::Stopping && refusal.isEmpty();
  a.kill = driven && refusal.isEmpty();
  a.whyNoStop = !refusal.isEmpty() ? refusal
                : driven           ? QString()
                : live             ? tr("No job of this app drives the run shown (it runs elsewhere)")
                                   : tr("The run shown has ended");
  a.continueRun = !live && facts.hasCheckpoint;
  a.continueAsksWhere = facts.remote;
  a.whyNoContinue = live                   ? tr("The run is still going")
                    : !facts.hasCheckpoint ? tr("No complete checkpoint of the run is here to continue from")
                                           : QString();
  a.rename = !live;
  a.trash = !live;
  a.fetch = facts.remote;
  return a;
}

}  // namespace traindeck
