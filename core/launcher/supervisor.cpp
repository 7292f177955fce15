// superviseRanks(): the public entry point. It keeps its promise never to throw by turning
// anything thrown (in practice std::bad_alloc) into a Failed result; the RankGroup's
// destructor has then already killed and reaped every rank.
#include "supervisor.h"

#include <exception>

#include "rank_supervisor.h"

namespace traindeck {

LaunchResult superviseRanks(const LaunchSpec& spec) {
  try {
    RankSupervisor supervisor(spec);
    return supervisor.run();
  } catch (const std::exception& e) {
    return {RunStatus::Failed, std::string("the supervisor failed: ") + e.what()};
  } catch (...) {
    return {RunStatus::Failed, "the supervisor failed with an unknown exception"};
  }
}

}  // namespace traindeck
