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
};

QTEST_GUILESS_MAIN(SweepPlacesTest)
#include "sweep_places_test.moc"
