#include "bootstrap_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>


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
  m_job = job && !job->hosts().isEmpty() ? job : nullptr;  // a run on this machine has no start to show
  m_bytes->hide();
  m_line->clear();
  m_cancel->setEnabled(true);
  if (m_job) {
    m_connections.push_back(connect(m_job, &Job::stepStarted, this, [this] {
      m_bytes->hide();
      refresh();
    }));
    m_connections.push_back(connect(m_job, &Job::outputLine, this, [this](int node, const QString& line) {
      const QStringList hosts = m_job ? m_job->hosts() : QStringList();
      m_line->setText(((hosts.size() > 1 ? hosts.value(node) + ": " : QString()) + line).left(300));
    }));
    m_connections.push_back(connect(m_job, &Job::transferProgress, this, [this](int, qint64 done, qint64 total) {
      m_bytes->setVisible(total > 0);
      m_bytes->setRange(0, 1000);
      m_bytes->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    }));
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
  const QVector<HostStart> starts = m_job->startSteps();
  for (int r = 0; r < starts.size(); ++r) {
    const HostStart& node = starts[r];
    hosts << node.host;
    QStringList parts;
    for (const BootstrapStep& step : node.steps) {
      const bool running = step.endedMs < 0;
      const qint64 took = (running ? node.sinceStartMs : step.endedMs) - step.startedMs;
      parts << QStringLiteral("%1 %2 %3")
                   .arg(running ? QStringLiteral("▶") : QStringLiteral("✓"), step.name, duration(took));
    }
    const QString steps = parts.join(QStringLiteral("  ·  "));
    lines << (starts.size() > 1 ? tr("node %1: %2").arg(r).arg(steps) : steps);
  }
  m_title->setText(tr("<b>Starting on %1</b>").arg(hosts.join(QStringLiteral(", ")).toHtmlEscaped()));
  m_steps->setText(lines.join('\n'));
}

}  // namespace traindeck
