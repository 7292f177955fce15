// What the Setup form calls each config key: words a newcomer reads, with the unit where there
// is one ("Micro-batch (sequences per rank)", "Checkpoint every (steps)"); the key itself is in
// the field's tooltip. A key without a label here is shown as its last part.
#pragma once

#include <QString>

namespace traindeck {

QString fieldLabel(const QString& path);

}  // namespace traindeck
