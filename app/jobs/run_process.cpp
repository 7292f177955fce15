// The end rule, asked with what the place knows of a death.
#include "run_process.h"

namespace traindeck {

RunEnd RunProcess::judge(RunSighting seen) const {
  seen.mayJudgeDeath = isOurs();
  seen.asked = m_asked;
  seen.graceMs = endGraceMs();
  return decideRunEnd(seen, death());
}

}  // namespace traindeck
