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

void BootstrapView::follow(RemoteJob* job) {
  for (QMetaObject::Connection& c : m_connections) disconnect(c);
  m_job = job;
  m_bytes->hide();
  m_line->clear();
  m_cancel->setEnabled(true);
  if (job != nullptr) {
    m_connections[0] = connect(job, &RemoteJob::stepStarted, this, [this] {
      m_bytes->hide();
      refresh();
    });
    m_connections[1] =
        connect(job, &RemoteJob::outputLine, this, [this](const QString& line) { m_line->setText(line.left(300)); });
    m_connections[2] = connect(job, &RemoteJob::transferProgress, this, [this](qint64 done, qint64 total) {
      m_bytes->setVisible(total > 0);
      m_bytes->setRange(0, 1000);
      m_bytes->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    });
    m_connections[3] = connect(job, &Job::stateChanged, this, &BootstrapView::refresh);
    m_connections[4] = connect(job, &QObject::destroyed, this, [this] { follow(nullptr); });
    const QStringList recent = job->recentOutput();
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
  m_title->setText(tr("<b>Starting on %1</b>").arg(m_job->record().spec.toHtmlEscaped()));
  QStringList parts;
  for (const BootstrapStep& step : m_job->steps()) {
    const bool running = step.endedMs < 0;
    const qint64 took = (running ? m_job->sinceStartMs() : step.endedMs) - step.startedMs;
    parts << QStringLiteral("%1 %2 %3")
                 .arg(running ? QStringLiteral("▶") : QStringLiteral("✓"), step.name, duration(took));
  }
  m_steps->setText(parts.join(QStringLiteral("  ·  ")));
}

}  // namespace traindeck
