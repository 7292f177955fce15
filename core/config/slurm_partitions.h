// What a Slurm cluster offers, as its login node's `sinfo -h -o '%P|%D|%G|%l'` says it, and
// Slurm's time limits in minutes. Validation checks a slurm job against these partitions, so a
// job that can never start is refused before it waits in the queue.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

struct SlurmPartition {
  std::string name;               // without sinfo's '*'
  int nodes = 0;                  // all of its nodes, whatever their state
  int gpusPerNode = 0;            // the most any of its nodes has
  std::optional<int> maxMinutes;  // none: infinite
  bool isDefault = false;         // sinfo marked it with '*'
  bool operator==(const SlurmPartition&) const = default;
};

// The exact command whose output parseSinfo reads.
inline constexpr const char* kSinfoPartitionsCommand = "sinfo -h -o '%P|%D|%G|%l'";

// One entry per partition, in the order sinfo first names them. sinfo prints a line per group
// of nodes alike (state, GRES), so lines of one partition are merged: nodes summed, GPUs per
// node the largest. Lines that are not four '|'-separated fields with a node count (a header,
// an error message) are skipped; a time limit that cannot be read counts as infinite, so it
// never refuses a job.
std::vector<SlurmPartition> parseSinfo(std::string_view text);

// The GPUs per node a GRES text names: "gpu:4", "gpu:a100:8", "gpu:4(S:0-1)", several joined by
// commas (their gpu counts added up); 0 for "(null)" or GRES without GPUs.
int gpusInGres(std::string_view gres);

// A time limit in Slurm's forms, as minutes (seconds round up, as Slurm rounds them): "MM",
// "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS". Digits only; after the first field,
// minutes and seconds are below 60 and hours below 24. nullopt for anything else (empty text,
// "infinite" and "UNLIMITED" included) or past INT_MAX minutes.
std::optional<int> slurmMinutes(std::string_view text);

// Minutes in the form Slurm prints them, which slurmMinutes reads back: "2-00:00:00", "01:30:00".
std::string slurmTimeText(int minutes);

// Minutes as people say them, for messages: 90 as "1 h 30 min", 2880 as "2 days".
std::string slurmDurationText(int minutes);

}  // namespace traindeck
