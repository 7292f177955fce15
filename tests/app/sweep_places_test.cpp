// A sweep's places as `--on` names them: a host and how many trials run there at once. (Each
// trial's part of a shared machine is the trainer's: tests/launcher's slot_share tests.)
#include <QTest>

#include "sweep_places.h"

using namespace traindeck;

class SweepPlacesTest : public QObject {
  Q_OBJECT
 private slots:
  void aHostTakesOneTrialUnlessToldHowMany() {
    QString error;
    const auto one = parseHostSlots("me@gpu-box:2222", &error);
    QVERIFY(one);
    QCOMPARE(one->host, QString("me@gpu-box:2222"));
    QCOMPARE(one->slotCount, 1);
    const auto four = parseHostSlots("gpu-box=4", &error);
    QVERIFY(four);
    QCOMPARE(four->host, QString("gpu-box"));
    QCOMPARE(four->slotCount, 4);
  }
  void aBadCountOrNoHostIsSaid() {
    for (const char* bad : {"gpu-box=0", "gpu-box=two", "gpu-box=", "=2", ""}) {
      QString error;
      QVERIFY2(!parseHostSlots(bad, &error), bad);
      QVERIFY2(error.contains("--on"), qPrintable(error));
    }
  }
  void aPlaceIsKeptInSweepJsonAndComesBack() {
    TargetConfig ssh;
    ssh.kind = TargetKind::Ssh;
    ssh.host = "me@gpu-b:2222";
    ssh.identity = "/keys/id";
    ssh.proxy_command = "cloudflared access ssh --hostname %h";
    const SweepPlace host{"gpu-b", ssh, 4};
    const SweepPlace back = placeOf(placeRecord(host));
    QCOMPARE(back.name, host.name);
    QCOMPARE(back.slotCount, 4);
    QVERIFY(back.target);
    QCOMPARE(back.target->kind, TargetKind::Ssh);
    QCOMPARE(back.target->host, ssh.host);
    QCOMPARE(back.target->identity, ssh.identity);
    QCOMPARE(back.target->proxy_command, ssh.proxy_command);
    const SweepPlace own = placeOf(placeRecord({"the job's target", std::nullopt, 2}));
    QVERIFY(!own.target);  // the job's own target, whatever it is then
    QCOMPARE(own.slotCount, 2);
  }
};

QTEST_GUILESS_MAIN(SweepPlacesTest)
#include "sweep_places_test.moc"
