#include "bootstrap_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "multi_host_job.h"

namespace traindeck {

namespace {

QString duration(qint64 ms) {
  if (ms < 60000) return QStringLiteral("%1 s").arg(static_cast<double>(ms) / 1000.0, 0, 'f', 1);
  return QStringLiteral("%1m%2s").arg(ms / 60000).arg((ms / 1000) % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

BootstrapView::BootstrapView(QWidget* parent) : QFrame(parent) {
  setObjectName("bootstrapView");
  setFrameShape(QFrame::StyledPanel);
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  m_title = new QLabel(this);
  m_title->setObjectName("bootstrapTitle");
  top->addWidget(m_title);
  m_steps = new QLabel(this);
  m_steps->setObjectName("bootstrapSteps");
  m_steps->setTextFormat(Qt::PlainText);
  top->addWidget(m_steps, 1);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName("bootstrapCancel");
  m_cancel->setToolTip(tr("Stop starting the run (what was built or uploaded stays for next time)"));
  top->addWidget(m_cancel);
  layout->addLayout(top);
  m_line = new QLabel(this);
  m_line->setObjectName("bootstrapLine");
  m_line->setTextFormat(Qt::PlainText);
  m_line->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(m_line);
  m_bytes = new QProgressBar(this);
  m_bytes->setObjectName("bootstrapBytes");
  m_bytes->setFormat(tr("%p% sent"));
  m_bytes->hide();
  layout->addWidget(m_bytes);
  m_tick.setInterval(1000);
  connect(&m_tick, &QTimer::timeout, this, &BootstrapView::refresh);
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    if (!m_job) return;
    m_cancel->setEnabled(false);
    m_line->setText(tr("Cancelling…"));
    m_job->stop();  // while starting: cancels at this step
  });
  hide();
}

void BootstrapView::follow(Job* job) {
  for (const QMetaObject::Connection& c : m_connections) disconnect(c);
  m_connections.clear();
  m_job = job;
  m_nodes.clear();
  if (auto* remote = qobject_cast<RemoteJob*>(job)) m_nodes << remote;
  if (auto* multi = qobject_cast<MultiHostJob*>(job))
    for (int r = 0; r < multi->nodeCount(); ++r) m_nodes << multi->node(r);
  if (m_nodes.isEmpty()) m_job = nullptr;
  m_bytes->hide();
  m_line->clear();
  m_cancel->setEnabled(true);
  for (const QPointer<RemoteJob>& node : m_nodes) {
    const QString who = m_nodes.size() > 1 ? node->spec() + ": " : QString();
    m_connections.push_back(connect(node, &RemoteJob::stepStarted, this, [this] {
      m_bytes->hide();
      refresh();
    }));
    m_connections.push_back(connect(node, &RemoteJob::outputLine, this,
                                    [this, who](const QString& line) { m_line->setText((who + line).left(300)); }));
    m_connections.push_back(connect(node, &RemoteJob::transferProgress, this, [this](qint64 done, qint64 total) {
      m_bytes->setVisible(total > 0);
      m_bytes->setRange(0, 1000);
      m_bytes->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    }));
  }
  if (m_job) {
    m_connections.push_back(connect(m_job, &Job::stateChanged, this, &BootstrapView::refresh));
    m_connections.push_back(connect(m_job, &QObject::destroyed, this, [this] { follow(nullptr); }));
    const QStringList recent = m_job->recentOutput();
    if (!recent.isEmpty()) m_line->setText(recent.back().left(300));
  }
  refresh();
}

QString BootstrapView::stepsText() const {
  return m_steps->text();
}

void BootstrapView::refresh() {
  const bool starting = m_job && m_job->state() == Job::State::Starting;
  setVisible(starting);
  if (!starting) {
    m_tick.stop();
    return;
  }
  if (!m_tick.isActive()) m_tick.start();
  QStringList hosts, lines;
  for (int r = 0; r < m_nodes.size(); ++r) {
    const RemoteJob* node = m_nodes[r];
    if (node == nullptr) continue;
    hosts << node->spec();
    QStringList parts;
    for (const BootstrapStep& step : node->steps()) {
      const bool running = step.endedMs < 0;
      const qint64 took = (running ? node->sinceStartMs() : step.endedMs) - step.startedMs;
      parts << QStringLiteral("%1 %2 %3")
                   .arg(running ? QStringLiteral("▶") : QStringLiteral("✓"), step.name, duration(took));
    }
    const QString steps = parts.join(QStringLiteral("  ·  "));
    lines << (m_nodes.size() > 1 ? tr("node %1: %2").arg(r).arg(steps) : steps);
  }
  m_title->setText(tr("<b>Starting on %1</b>").arg(hosts.join(QStringLiteral(", ")).toHtmlEscaped()));
  m_steps->setText(lines.join('\n'));
}

}  // namespace traindeck
