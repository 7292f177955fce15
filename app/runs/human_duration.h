// Durations as people read them, one way everywhere (ETA, plan, Compare's wall time, a start's
// steps): "45s", "3m10s", "2h05m", "3.5 days", "4.3 years"; never "37943h55m" or "7.16e+03 s".
#pragma once

#include <QString>

namespace traindeck {

QString humanDuration(double seconds);

}  // namespace traindeck
