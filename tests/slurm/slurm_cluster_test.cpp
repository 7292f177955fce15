// The Slurm fixture itself, as the Slurm runs' tests will use it: a batch job on both nodes runs
// one task per node with SLURM_NODEID 0 and 1, and a requeued job starts again within seconds
// with SLURM_RESTART_COUNT 1 (cred_expire=10), its output appended.
#include <QDir>
#include <QFile>
#include <QTest>

#include "slurm_cluster.h"

using traindeck::test::SlurmCluster;

class SlurmClusterTest : public QObject {
  Q_OBJECT
  SlurmCluster m_cluster;

  QString submit(const QString& script, const QStringList& options) {
    const QString path = QDir(m_cluster.dir()).filePath(QStringLiteral("job-%1.sh").arg(++m_jobs));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(("#!/bin/sh\n" + script).toUtf8());
    file.close();
    bool ok = false;
    const QString id =
        m_cluster.run("sbatch", QStringList{"--parsable", "--chdir", m_cluster.dir()} + options << path, &ok).trimmed();
    return ok ? id : QString();
  }
  static QString read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
  }
  int m_jobs = 0;

 private slots:
  void initTestCase() {
    if (const QString missing = SlurmCluster::missingPackage(); !missing.isEmpty())
      QFAIL(qPrintable("install " + missing + " (packaging/install-deps.sh does) to run the Slurm tests"));
    const QString why = m_cluster.start();
    QVERIFY2(why.isEmpty(), qPrintable(why));
  }

  void aJobOnBothNodesRunsOneTaskEach() {
    const QString out = QDir(m_cluster.dir()).filePath("nodes.out");
    const QString id = submit("srun sh -c 'echo \"$SLURM_NODEID $SLURMD_NODENAME\"' > " + out + "\n",
                              {"-N", "2", "--ntasks-per-node=1", "-p", "debug"});
    QVERIFY2(!id.isEmpty(), qPrintable(m_cluster.logs()));
    QTRY_VERIFY2_WITH_TIMEOUT(!m_cluster.inQueue(id), qPrintable(m_cluster.logs()), 60000);
    QStringList lines = read(out).split('\n', Qt::SkipEmptyParts);
    lines.sort();
    QCOMPARE(lines, (QStringList{"0 n1", "1 n2"}));
  }

  void aRequeuedJobStartsAgain() {
    const QString out = QDir(m_cluster.dir()).filePath("requeue.out");
    const QString id = submit("echo \"start ${SLURM_RESTART_COUNT:-0}\"\nsleep 300\n",
                              {"-N", "1", "--requeue", "--open-mode=append", "-o", out});
    QVERIFY2(!id.isEmpty(), qPrintable(m_cluster.logs()));
    QTRY_VERIFY_WITH_TIMEOUT(read(out).contains("start 0"), 30000);
    QTRY_VERIFY2_WITH_TIMEOUT(m_cluster.requeueOnce(id), qPrintable(m_cluster.lastError() + "\n" + m_cluster.logs()),
                              30000);
    QTRY_VERIFY2_WITH_TIMEOUT(read(out).contains("start 1"),
                              qPrintable(read(out) + m_cluster.jobDetails(id) + m_cluster.logs()), 120000);
    m_cluster.run("scancel", {id});
    QTRY_VERIFY_WITH_TIMEOUT(!m_cluster.inQueue(id), 30000);
  }
};

QTEST_GUILESS_MAIN(SlurmClusterTest)
#include "slurm_cluster_test.moc"
