// Each page of the main window as the window shows it, to <folder>/<page>.png (setup, its Sweep
// tab as setup-sweep, monitor, logs, compare, sweep, and compare-multiples when runs are
// compared): `traindeck --screenshot` and the screenshot test. False if one could not be written.
#pragma once

#include <QString>

class QTabWidget;
class QWidget;

namespace traindeck {

class ComparePage;

bool savePageScreenshots(QWidget* window, QTabWidget* pages, ComparePage* compare, bool comparing,
                         const QString& folder);

}  // namespace traindeck
