#include "sharded_adamw.h"

#include <stdexcept>

namespace traindeck {

namespace {

std::string segmentName(std::size_t index) {
  return "segment-" + std::to_string(index);
}

}  // namespace

ShardedAdamW::ShardedAdamW(Communicator& communicator, const FlatLayout& layout, const std::vector<ShardSpan>& spans,
                           AdamWSettings settings)
    : m_comm(communicator), m_layout(layout), m_spans(spans) {
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
  std::vector<OptimizedParameter> pieces;
  for (const ShardSpan& span : spans) {
    const std::int64_t mine = span.begin + span.chunk * communicator.rank();
    for (std::size_t i = 0; i < layout.slots.size(); ++i) {
      const FlatSlot& slot = layout.slots[i];
      const std::int64_t begin = std::max(slot.offset, mine);
      const std::int64_t end = std::min(slot.offset + slot.numel, mine + span.chunk);
      if (begin >= end) continue;
      pieces.push_back({segmentName(m_segments.size()), m_flatParams.narrow(0, begin, end - begin), slot.decay,
                        span.grad.narrow(0, begin - mine, end - begin)});
      m_segments.push_back({i, begin, end - begin});
    }
  }
  m_adam = std::make_unique<AdamW>(std::move(pieces), settings);
}

void ShardedAdamW::step(double lr, const torch::Tensor& apply) {
  m_adam->step(lr, apply);
  torch::NoGradGuard noGrad;
  for (const ShardSpan& span : m_spans)
    m_comm.allgatherInPlace(m_flatParams.narrow(0, span.begin, span.chunk * m_comm.worldSize()));
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
  std::vector<std::vector<std::size_t>> segmentsOfSlot(m_layout.slots.size());
  for (std::size_t s = 0; s < m_segments.size(); ++s) segmentsOfSlot[m_segments[s].slot].push_back(s);
  // Tensor by tensor, summed into rank 0 (the ranks' parts are disjoint: the sum is the whole),
  // so no other rank ever holds more than one parameter's moment of it.
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const char* moment : {"exp_avg/", "exp_avg_sq/"}) {
    for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
      const FlatSlot& slot = m_layout.slots[i];
      auto whole = torch::zeros({slot.numel}, m_flatParams.options());
      for (std::size_t s : segmentsOfSlot[i])
        whole.narrow(0, m_segments[s].flatBegin - slot.offset, m_segments[s].length)
            .copy_(pieces.at(moment + segmentName(s)));
      m_comm.reduce(whole, 0);
      if (m_comm.rank() == 0) out.emplace_back(moment + slot.name, whole.view(slot.parameter.sizes()));
    }
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
