// A submission whose answer was lost (the leader's link went, or the leader went) is asked again
// with the same array folder and the same runs: the helper answers the array it made, if it made
// one. When the runs are no longer the same, each goes alone: the helper's submit answers a run
// that the array took with its task's id (its slurm.env), and submits the others.
#include "slurm_array.h"

#include <QDateTime>
#include <QRegularExpression>

#include "remote_bootstrap.h"
#include "remote_helper_answers.h"
#include "slurm_batch.h"

namespace traindeck {

SlurmArray::SlurmArray(QString name, int throttle, int pack, QObject* parent)
    : QObject(parent), m_name(std::move(name)), m_throttle(std::max(1, throttle)), m_pack(std::max(1, pack)) {}

void SlurmArray::seal() {
  m_sealed = true;
  submitIfReady();
}

SlurmArray::Member* SlurmArray::find(RemoteBootstrap* start) {
  for (Member& m : m_members)
    if (m.start == start) return &m;
  return nullptr;
}

void SlurmArray::enlist(RemoteBootstrap* start) {
  if (find(start)) return;
  Member m;
  m.start = start;
  m_members.push_back(m);
}

void SlurmArray::arrive(RemoteBootstrap* start, const QString& runDir, const QString& script, const QString& text) {
  Member* m = find(start);
  if (!m || m->left) return start->submitAlone();  // not one of ours (cannot be), or given up on
  m->runDir = runDir;
  m->script = script;
  m->text = text;
  m->arrived = true;
  if (!m->jobId.isEmpty()) return start->takeJob(m->jobId, m_pack > 1);  // submitted already; its step ran again
  submitIfReady();
}

void SlurmArray::leave(RemoteBootstrap* start) {
  Member* m = find(start);
  if (!m || m->left) return;
  m->left = true;
  if (m_submitting && m_leader == start) m_submitting = false;  // its answer will not come
  submitIfReady();
}

void SlurmArray::submitIfReady() {
  if (!m_sealed || m_submitting) return;
  std::vector<std::size_t> waiting;
  for (std::size_t i = 0; i < m_members.size(); ++i) {
    Member& m = m_members[i];
    if (m.start.isNull()) m.left = true;
    if (m.left || !m.jobId.isEmpty()) continue;
    if (!m.arrived) return;  // not all here yet
    waiting.push_back(i);
  }
  if (waiting.empty()) return;
  // Those that ask for what the first asks share the array; any other goes alone.
  const QStringList asked = sbatchOptionsOf(m_members[waiting.front()].text, /*forArray=*/true);
  std::vector<std::size_t> tasks;
  for (std::size_t i : waiting) {
    if (sbatchOptionsOf(m_members[i].text, true) == asked)
      tasks.push_back(i);
    else
      goAlone(i);
  }
  const bool sameAsTried = m_tried.empty() || m_tried == tasks;
  if (tasks.size() < 2 || !sameAsTried) {
    for (std::size_t i : tasks) goAlone(i);
    return;
  }
  Member& leader = m_members[tasks.front()];
  if (m_arrayDir.isEmpty()) {
    QString name = m_name;
    name.replace(QRegularExpression("[^A-Za-z0-9._-]"), "_");
    m_arrayDir = leader.start->workDir() + "/arrays/" + name + "-" +
                 QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
  }
  SlurmArrayStart start{m_name, m_arrayDir, {}, m_throttle, m_pack};
  QStringList runDirs;
  for (std::size_t i : tasks) {
    start.memberScripts << m_members[i].script;
    runDirs << m_members[i].runDir;
  }
  QString error;
  const QString text = slurmArrayScript(leader.text, start, &error);
  if (text.isEmpty()) {
    for (std::size_t i : tasks) goAlone(i);
    return;
  }
  m_tried = tasks;
  m_submitting = true;
  m_leader = leader.start;
  leader.start->submitArray(text, m_arrayDir, m_pack, runDirs,
                            [this, tasks](const std::optional<SubmitAnswer>& answer) { submitted(tasks, answer); });
}

void SlurmArray::goAlone(std::size_t i) {
  Member& m = m_members[i];
  m.left = true;  // not the array's any more
  if (m.start) m.start->submitAlone();
}

void SlurmArray::submitted(const std::vector<std::size_t>& tasks, const std::optional<SubmitAnswer>& answer) {
  m_submitting = false;
  m_leader = nullptr;
  if (!answer) return;  // the leader's step runs again once its link is back (or it leaves)
  if (!answer->submitted() && m_pack > 1) {
    // Slurm would not take the pack (a node has not K times what a trial asks for): the same
    // runs, a task each.
    const QString why = answer->why();
    for (std::size_t i : tasks)
      if (m_members[i].start)
        m_members[i].start->tell(
            tr("Slurm did not take %1 runs to a job (%2): each goes as its own task").arg(m_pack).arg(why));
    m_pack = 1;
    return submitIfReady();
  }
  if (!answer->submitted()) {
    for (std::size_t i : tasks) {
      m_members[i].left = true;
      if (m_members[i].start)
        m_members[i].start->failSubmit(tr("Slurm did not take the job array: %1").arg(answer->why()));
    }
    return;
  }
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    Member& m = m_members[tasks[k]];
    m.jobId = answer->jobId + "_" + QString::number(k / m_pack);
    if (m.start && m.arrived) m.start->takeJob(m.jobId, m_pack > 1);
  }
}

}  // namespace traindeck
