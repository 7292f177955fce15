// HostStore: saved hosts round-trip through QSettings (an INI file in a temporary directory),
// and entries that cannot be saved say why.
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "host_store.h"

using namespace traindeck;

class HostStoreTest : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip() {
    QTemporaryDir dir;
    const QList<HostEntry> hosts = {{"colab", "root@colab-abc", "", "cloudflared access ssh --hostname %h"},
                                    {"gpu box", "me@10.0.0.5:2222", "/home/me/.ssh/id_ed25519", ""}};
    {
      QSettings s(dir.filePath("t.ini"), QSettings::IniFormat);
      HostStore::save(s, hosts);
    }
    QSettings s(dir.filePath("t.ini"), QSettings::IniFormat);
    QCOMPARE(HostStore::load(s), hosts);
    HostStore::save(s, {hosts[1]});
    QCOMPARE(HostStore::load(s).size(), 1);
  }

  void problems() {
    const QList<HostEntry> others = {{"a", "h", "", ""}};
    QVERIFY(HostStore::problem({"b", "u@h:22", "", ""}, others).isEmpty());
    QVERIFY(HostStore::problem({"", "h", "", ""}, others).contains("name"));
    QVERIFY(HostStore::problem({"a", "h", "", ""}, others).contains("already"));
    QVERIFY(HostStore::problem({"c", "h:0", "", ""}, others).contains("port"));
  }
};

QTEST_GUILESS_MAIN(HostStoreTest)
#include "host_store_test.moc"
