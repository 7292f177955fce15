// Where a sweep's trials run: places, each with a number of slots (trials at once). A place is
// the trial's own job target (this machine, an SSH host or a Slurm cluster, as the base job
// says) or another target the sweep was told to use (`traindeck --sweep ... --on HOST[=N]`).
// Several slots on one machine share it: each trial's trainer is told its slot (`run --slot
// I/N`) and takes its part of that machine's GPUs or cores there (core/launcher/slot_share.h).
#pragma once

#include <QString>
#include <optional>

#include "config/run_config.h"
#include "sweep/sweep_state.h"

namespace traindeck {

struct SweepPlace {
  QString name;                        // for messages: "this machine", "gpu-box"
  std::optional<TargetConfig> target;  // none: each trial's own target (the base job's)
  int slotCount = 1;
  // A Slurm cluster: its new trials go this many to one allocation (slurmArrayScript's pack);
  // slotCount is then allocations at once.
  int pack = 1;
};

// "[user@]host[:port][=N]" as `--on` takes it: the host and its slots (N trials at once there;
// default 1). Nullopt with *error when N is not a whole number from 1.
struct HostSlots {
  QString host;
  int slotCount = 1;
};
std::optional<HostSlots> parseHostSlots(const QString& text, QString* error);

// A place as sweep.json keeps it, and back (an SSH host: its spec, key file and ProxyCommand;
// the job's own target: none).
PlaceRecord placeRecord(const SweepPlace& place);
SweepPlace placeOf(const PlaceRecord& record);

}  // namespace traindeck
