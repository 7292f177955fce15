// Several Slurm starts gathered into one job array (docs/sweeps.md, places and slots): each run's
// start goes as far as its own batch script on the cluster, then waits here. Once the caller has
// sealed the array and every run enlisted has arrived or dropped out, the first to arrive submits
// one array for them all (slurmArrayScript, the helper's submit-array: at most `throttle` of its
// tasks run at once), and each run takes its task's id ("ID_k") as its job. A run whose script asks
// for something else than the first one's (nodes, time, partition) is submitted alone, as is the
// one run left when the others dropped out. With a pack of K, each task runs K of them at once in
// its one allocation (slurmArrayScript), and they share its id; a pack Slurm will not take is
// submitted again a run to a task. Shared by the caller (a sweep's
// runner) and the runs' starts (RemoteLaunch::slurmArray); GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <optional>
#include <vector>

namespace traindeck {

class RemoteBootstrap;
struct SubmitAnswer;

class SlurmArray : public QObject {
  Q_OBJECT
 public:
  // `pack`: runs in one task, sharing its allocation (slurmArrayScript's pack); 1: a task each.
  SlurmArray(QString name, int throttle, int pack = 1, QObject* parent = nullptr);

  // The caller: no more runs will enlist.
  void seal();
  int throttle() const { return m_throttle; }
  int pack() const { return m_pack; }

  // A run's start, as it is made.
  void enlist(RemoteBootstrap* start);
  // Its batch script is at `script` (its run folder there: `runDir`); `text` is the script. Asked
  // again (a step run again after a lost link), it is the same arrival.
  void arrive(RemoteBootstrap* start, const QString& runDir, const QString& script, const QString& text);
  // It will not arrive (its start failed or ended) or went.
  void leave(RemoteBootstrap* start);

 private:
  struct Member {
    QPointer<RemoteBootstrap> start;
    QString runDir, script, text;
    bool arrived = false, left = false;
    QString jobId;  // its task's, once submitted
  };
  Member* find(RemoteBootstrap* start);
  void submitIfReady();
  void goAlone(std::size_t member);
  void submitted(const std::vector<std::size_t>& tasks, const std::optional<SubmitAnswer>& answer);

  QString m_name;
  int m_throttle;
  int m_pack;
  bool m_sealed = false;
  bool m_submitting = false;
  RemoteBootstrap* m_leader = nullptr;  // whose submission is on its way
  QString m_arrayDir;                   // on the cluster, chosen at the first try and kept
  std::vector<std::size_t> m_tried;     // the members the first try submitted, in task order
  std::vector<Member> m_members;
};

}  // namespace traindeck
