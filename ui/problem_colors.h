// The colours the Setup page and the config form give a problem: red for an error (the job
// cannot start), amber for a warning.
#pragma once

#include <QColor>

namespace traindeck {

inline const QColor kErrorColor(0xc0, 0x39, 0x2b);
inline const QColor kWarningColor(0xd6, 0x8a, 0x10);

}  // namespace traindeck
