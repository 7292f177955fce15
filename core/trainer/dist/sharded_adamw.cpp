#include "sharded_adamw.h"

#include <stdexcept>

namespace traindeck {

namespace {

std::string segmentName(std::size_t index) {
  return "segment-" + std::to_string(index);
}

}  // namespace

ShardedAdamW::ShardedAdamW(Communicator& communicator, const FlatLayout& layout, torch::Tensor flatGradients,
                           AdamWSettings settings)
    : m_comm(communicator), m_layout(layout) {
  torch::NoGradGuard noGrad;
  const auto options =
      layout.slots.empty() ? torch::TensorOptions().dtype(torch::kFloat) : layout.slots.front().parameter.options();
  m_flatParams = torch::zeros({layout.padded}, options);
  for (const FlatSlot& slot : layout.slots) {
    auto view = m_flatParams.narrow(0, slot.offset, slot.numel);
    view.copy_(slot.parameter.reshape(-1));
    torch::Tensor parameter = slot.parameter;
    parameter.set_data(view.view(parameter.sizes()));
  }
  m_shardSize = layout.shardSize(communicator.worldSize());
  m_shardBegin = m_shardSize * communicator.rank();
  const std::int64_t shardEnd = m_shardBegin + m_shardSize;
  std::vector<OptimizedParameter> pieces;
  for (std::size_t i = 0; i < layout.slots.size(); ++i) {
    const FlatSlot& slot = layout.slots[i];
    const std::int64_t begin = std::max(slot.offset, m_shardBegin);
    const std::int64_t end = std::min(slot.offset + slot.numel, shardEnd);
    if (begin >= end) continue;
    pieces.push_back({segmentName(m_segments.size()), m_flatParams.narrow(0, begin, end - begin), slot.decay,
                      flatGradients.narrow(0, begin, end - begin)});
    m_segments.push_back({i, begin, end - begin});
  }
  m_adam = std::make_unique<AdamW>(std::move(pieces), settings);
}

void ShardedAdamW::step(double lr, const torch::Tensor& apply) {
  m_adam->step(lr, apply);
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> shards;
  for (int r = 0; r < m_comm.worldSize(); ++r) shards.push_back(m_flatParams.narrow(0, r * m_shardSize, m_shardSize));
  auto mine = shards[static_cast<std::size_t>(m_comm.rank())].clone();
  m_comm.allgather(shards, mine);
}

std::vector<std::pair<std::string, torch::Tensor>> ShardedAdamW::gatherState() {
  torch::NoGradGuard noGrad;
  std::map<std::string, torch::Tensor> pieces;
  torch::Tensor step;
  for (auto& [name, tensor] : m_adam->state()) {
    if (name == "step")
      step = tensor;
    else
      pieces[name] = tensor;
  }
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const char* moment : {"exp_avg/", "exp_avg_sq/"}) {
    auto whole = torch::zeros({m_layout.padded}, m_flatParams.options());
    for (std::size_t s = 0; s < m_segments.size(); ++s)
      whole.narrow(0, m_segments[s].flatBegin, m_segments[s].length).copy_(pieces.at(moment + segmentName(s)));
    m_comm.allreduce(whole);  // the shards are disjoint: the sum is the whole
    for (const FlatSlot& slot : m_layout.slots)
      out.emplace_back(moment + slot.name, whole.narrow(0, slot.offset, slot.numel).view(slot.parameter.sizes()));
  }
  out.emplace_back("step", step);
  return out;
}

void ShardedAdamW::loadState(const std::map<std::string, torch::Tensor>& tensors) {
  std::map<std::string, torch::Tensor> mine;
  for (std::size_t s = 0; s < m_segments.size(); ++s) {
    const Segment& segment = m_segments[s];
    const FlatSlot& slot = m_layout.slots[segment.slot];
    for (const std::string moment : {"exp_avg/", "exp_avg_sq/"}) {
      const auto it = tensors.find(moment + slot.name);
      if (it == tensors.end()) throw std::runtime_error("optimizer state has no tensor " + moment + slot.name);
      if (it->second.numel() != slot.numel)
        throw std::runtime_error("optimizer state tensor " + moment + slot.name +
                                 " has the wrong shape for this model");
      mine[moment + segmentName(s)] = it->second.reshape(-1).narrow(0, segment.flatBegin - slot.offset, segment.length);
    }
  }
  const auto step = tensors.find("step");
  if (step == tensors.end()) throw std::runtime_error("optimizer state has no tensor step");
  mine["step"] = step->second;
  m_adam->loadState(mine);
}

}  // namespace traindeck
