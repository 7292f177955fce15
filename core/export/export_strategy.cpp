#include "export/export_strategy.h"

#include "config/enum_names.h"

namespace traindeck {

namespace {

bool sharded(StrategyKind kind) {
  return kind == StrategyKind::Zero1 || kind == StrategyKind::Zero2 || kind == StrategyKind::Zero3;
}

std::string whatItShards(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::Zero1:
      return "the optimizer state";
    case StrategyKind::Zero2:
      return "the optimizer state and the gradients";
    default:
      return "the weights, gradients and optimizer state";
  }
}

std::string pytorchWay(StrategyKind kind, int devices) {
  const std::string over = " over " + std::to_string(devices) + " ranks";
  switch (kind) {
    case StrategyKind::Zero1:
      return "zero1 as ZeroRedundancyOptimizer under DDP: AdamW's moments split" + over + ".";
    case StrategyKind::Zero2:
      return "zero2 as FSDP2's fully_shard with reshard_after_forward=False (torch 2.4 or newer): weights, "
             "gradients and AdamW's moments split" +
             over + ", each block's weights kept gathered from its forward to its backward.";
    case StrategyKind::Zero3:
      return "zero3 as FSDP2's fully_shard (torch 2.4 or newer): weights, gradients and AdamW's moments split" + over +
             ", each block's weights gathered just before use and freed after.";
    default:
      return devices > 1 ? "ddp: the whole model on each of " + std::to_string(devices) + " ranks." : "one rank.";
  }
}

}  // namespace

int exportDevices(const RunConfig& config, const PlaceInfo& place) {
  return place.devices > 0 ? place.devices : static_cast<int>(config.strategy.worldSize());
}

CarriedStrategy carriedStrategy(StrategyKind kind, const FrameworkInfo& framework, const PlaceInfo& place,
                                int devices) {
  const std::string name(toString(kind));
  if (!sharded(kind)) {
    if (framework.framework == ExportFramework::PytorchDdp) return {"", pytorchWay(kind, devices)};
    return {"", devices > 1 ? "data parallel: the whole model on each of " + std::to_string(devices) + " devices."
                            : "one device."};
  }
  if (devices < 2)
    return {"strategy.kind is " + name + ", which splits " + whatItShards(kind) + " over several ranks, and " +
                place.name + " has one " + (place.tpu ? "TPU chip" : "GPU") +
                ": there is nothing to split over. Export for a place with several devices (kaggle-t4x2, or vm "
                "with strategy.nproc_per_node ranks), or set strategy.kind: single if the plan for one device fits",
            ""};
  switch (framework.framework) {
    case ExportFramework::TrainDeck:
      return {"",
              name + " by TrainDeck's own trainer, as on this machine, over " + std::to_string(devices) + " ranks."};
    case ExportFramework::PytorchDdp:
      return {"", pytorchWay(kind, devices), kind == StrategyKind::Zero1};
    default:
      return {framework.name + " copies the whole model onto every device (this export has no sharding), and " +
                  "strategy.kind is " + name + ", which splits " + whatItShards(kind) +
                  " over the ranks: a job that fits only so would not fit. Choose traindeck or pytorch-ddp " +
                  (place.tpu ? "on a GPU place" : "here") +
                  ", or set strategy.kind: ddp if the plan for one device holding everything fits",
              ""};
  }
}

std::string exportRefusal(const RunConfig& config, const FrameworkInfo& framework, const PlaceInfo& place) {
  if (std::string problem = targetProblem(framework, place); !problem.empty()) return problem;
  return carriedStrategy(config.strategy.kind, framework, place, exportDevices(config, place)).refusal;
}

}  // namespace traindeck
