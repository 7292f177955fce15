// One connection, one command (the helper's `alive`, which also says the boot id), one answer.
#include "runtime_check.h"

#include "remote_answers.h"
#include "shell_quote.h"

namespace traindeck {

namespace {
constexpr const char* kNoWorkFolder = "work_folder=gone";
}  // namespace

RuntimeCheck::RuntimeCheck(const RemoteRecord& record, RemoteHost::HostKeyPrompt hostKeyPrompt, bool batch,
                           QObject* parent)
    : QObject(parent), m_record(record), m_hostKeyPrompt(std::move(hostKeyPrompt)), m_batch(batch) {
  m_bound.setSingleShot(true);
  connect(&m_bound, &QTimer::timeout, this, [this] {
    answer(false, tr("%1 cannot be reached (no answer within %2 s)").arg(m_record.spec).arg(m_bound.interval() / 1000));
  });
}

RuntimeCheck::~RuntimeCheck() = default;

void RuntimeCheck::start(int boundMs) {
  m_bound.start(boundMs);
  m_host = std::make_unique<RemoteHost>(m_record.target(m_batch));
  if (m_hostKeyPrompt) m_host->setHostKeyPrompt(m_hostKeyPrompt);
  connect(m_host.get(), &RemoteHost::connectionFailed, this, [this](const QString& message) {
    answer(false, tr("%1 cannot be reached: %2").arg(m_record.spec, message));
  });
  connect(m_host.get(), &RemoteHost::readyChanged, this, [this](bool ready) {
    if (!ready || m_asked) return;
    m_asked = true;
    const QString helper = shellQuote(m_record.helper);
    const QString command = QStringLiteral("test -f %1 || { echo %2; exit 0; }; ").arg(helper, kNoWorkFolder) +
                            shellJoin({"sh", m_record.helper, "alive", QString::number(m_record.pid), m_record.startTime});
    m_host->exec(command, this, [this](const RemoteHost::ExecResult& r) {
      if (!r.failure.isEmpty()) return answer(false, tr("%1 did not answer: %2").arg(m_record.spec, r.failure));
      const QMap<QString, QString> said = parseKeyValues(r.out);
      if (r.out.contains(kNoWorkFolder))
        return answer(false, tr("the work folder %1 is not on %2 any more").arg(m_record.workDir, m_record.spec));
      if (!m_record.bootId.isEmpty() && said.value("boot_id") != m_record.bootId)
        return answer(false, tr("%1 restarted (its boot id changed) since the run started").arg(m_record.spec));
      if (said.value("alive") != QLatin1String("yes"))
        return answer(false,
                      tr("its supervisor (pid %1) is not running on %2 any more").arg(m_record.pid).arg(m_record.spec));
      answer(true, tr("its supervisor (pid %1) is running on %2").arg(m_record.pid).arg(m_record.spec));
    });
  });
  m_host->connectToHost();
}

void RuntimeCheck::answer(bool alive, const QString& why) {
  if (m_answered) return;
  m_answered = true;
  m_bound.stop();
  emit answered(alive, why);
}

}  // namespace traindeck
