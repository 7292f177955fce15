// One job on several SSH hosts, one node each (target.hosts): a RemoteJob per node, bootstrapped
// all at once and held before their launch until every node is ready, then started together,
// each with its node rank and node 0's address. Node 0's mirror is the run directory (its
// metrics hold every rank's records, its checkpoints the whole training state); node r's is
// <run>/nodes/node-r (its run.json, supervisor.log and its own ranks' logs, which the log view
// reads as well). When one node fails (a killed supervisor, a failed rank, a runtime gone, a
// start that failed) the others are killed at once and the run's run.json says which node, host
// and rank ended it. Stop and Kill go to every node. GUI thread.
#pragma once

#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVector>
#include <memory>
#include <vector>

#include "job.h"
#include "remote_job.h"

namespace traindeck {

class MultiHostJob : public Job {
  Q_OBJECT
 public:
  // After the first node fails with a verdict of its own, how long the others may take to say
  // theirs: a node that was killed outright (no verdict) is then named, not the one that lost it.
  static constexpr int kJudgeMs = 1500;

  // One job per node, node 0 first, configured by the caller (prompts, checkpoints kept).
  explicit MultiHostJob(std::vector<std::unique_ptr<RemoteJob>> nodes, QObject* parent = nullptr);
  ~MultiHostJob() override;  // the nodes' runs go on

  // launches[r] is node r's, with its node flags in extraArgs; node 0's mirror is the run.
  void start(const QVector<RemoteLaunch>& launches, int ranksPerNode);
  // Follows the run whose mirror is `runDir` again, every node's (nodeDirs). Empty, or why not.
  QString attach(const QString& runDir, bool batch);

  // <run>/nodes/node-<r>: node r's mirror (r >= 1).
  static QString nodeDir(const QString& runDir, int node);
  // How many nodes the run at `runDir` has: 1 + the node mirrors under it.
  static int nodeCountOf(const QString& runDir);

  State state() const override { return m_state; }
  QString runDir() const override { return m_runDir; }
  void stop() override;
  void kill() override;
  QStringList recentOutput() override;
  QString linkText() const override;
  // Following once every node followed is; else the worst of theirs (unreachable first).
  Link link() const override;
  QStringList hosts() const override;
  QVector<HostStart> startSteps() const override;

  int nodeCount() const { return static_cast<int>(m_nodes.size()); }
  RemoteJob* node(int r) const { return m_nodes[static_cast<std::size_t>(r)].job.get(); }

 signals:

 private:
  struct Node {
    std::unique_ptr<RemoteJob> job;
    bool ready = false;  // waiting at its launch
    bool ended = false;
    int exitCode = 0;         // as Job::finished says
    int endOrder = 0;         // 1 for the first node to end
    bool killedByUs = false;  // taken down because another node failed, or Kill
    QString startFailure;     // why it did not start
  };
  void follow(int r);
  void releaseWhenAllReady();
  void nodeEnded(int r, int exitCode);
  void takeDown();
  void finish();
  void updateState();
  void setState(State state);
  QString nodeName(int r) const;  // "node 1 on ubuntu@10.0.0.2"
  QString ranksOf(int r) const;   // "rank 1", "ranks 2-3"
  int culprit() const;            // the node whose failure ended the job, or -1

  std::vector<Node> m_nodes;
  QString m_runDir;
  int m_ranksPerNode = 1;
  State m_state = State::Idle;
  bool m_started = false;  // every node reached Running once
  bool m_takingDown = false;
  bool m_killAsked = false;
  bool m_stopAsked = false;  // Stop while running: every node saves a checkpoint
  int m_ended = 0;
  QTimer m_judge;
};

}  // namespace traindeck
