// distinctRunName: a job's first run keeps its name; later ones are named for what differs from
// the newest earlier run of the same job (paths compared as the trainer records them), or
// numbered when nothing does; other jobs' runs do not count.
#include <QtTest>

#include "config/config_io.h"
#include "config/validate.h"
#include "run_names.h"

namespace traindeck {

class RunNamesTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_root;

  RunConfig job() const {
    RunConfig c;
    c.name = "tiny";
    c.data.train = "data";  // relative: to the job's folder
    return c;
  }
  // A run of `config` as the trainer leaves it: config.yaml with its paths expanded.
  bool recordRun(const QString& id, const RunConfig& config) {
    QDir().mkpath(m_root.filePath(id));
    QFile f(m_root.filePath(id + "/config.yaml"));
    const std::string text =
        saveConfigText(withExpandedPaths(config, m_root.path().toStdString(), processEnvironment()));
    return f.open(QIODevice::WriteOnly) && f.write(text.c_str()) > 0;
  }

 private slots:
  void namesSayWhatDiffers() {
    QCOMPARE(distinctRunName(job(), m_root.path(), m_root.path()), QString("tiny"));  // the first run
    QVERIFY(recordRun("20261201-100000-tiny", job()));
    QCOMPARE(distinctRunName(job(), m_root.path(), m_root.path()), QString("tiny #2"));  // nothing differs
    RunConfig faster = job();
    faster.optimizer.lr = 0.002;
    faster.strategy.micro_batch = 16;
    const QString name = distinctRunName(faster, m_root.path(), m_root.path());
    QVERIFY2(name.startsWith("tiny · "), qPrintable(name));
    QVERIFY2(name.contains("micro_batch=16"), qPrintable(name));
    const QString lr = name.section("lr=", 1).section(',', 0, 0);
    QCOMPARE(lr.toDouble(), 0.002);
    QCOMPARE(jobNameOf(name), QString("tiny"));
    QCOMPARE(jobNameOf("tiny #2"), QString("tiny"));
    // Against the newest run of the job: once that run is recorded, only what differs from it.
    RunConfig named = faster;
    named.name = name.toStdString();
    QVERIFY(recordRun("20261201-100100-tiny-lr", named));
    RunConfig slower = faster;
    slower.optimizer.lr = 0.001;
    QVERIFY2(distinctRunName(slower, m_root.path(), m_root.path()).startsWith("tiny · lr="),
             qPrintable(distinctRunName(slower, m_root.path(), m_root.path())));
    QVERIFY(!distinctRunName(slower, m_root.path(), m_root.path()).contains("micro_batch"));
    // Another job's runs do not count.
    RunConfig other = job();
    other.name = "other";
    QCOMPARE(distinctRunName(other, m_root.path(), m_root.path()), QString("other"));
  }
};

}  // namespace traindeck

QTEST_GUILESS_MAIN(traindeck::RunNamesTest)
#include "run_names_test.moc"
