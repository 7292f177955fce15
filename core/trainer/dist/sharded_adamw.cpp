#include "sharded_adamw.h"

#include <memory>
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
  m_floats =
      layout.slots.empty() ? torch::TensorOptions().dtype(torch::kFloat) : layout.slots.front().parameter.options();
  m_flatParams = torch::zeros({layout.padded}, m_floats);
  for (const FlatSlot& slot : layout.slots) {
    auto view = m_flatParams.narrow(0, slot.offset, slot.numel);
    view.copy_(slot.parameter.reshape(-1));
    torch::Tensor parameter = slot.parameter;
    parameter.set_data(view.view(parameter.sizes()));
  }
  optimizeOwnPieces(
      [&](const ShardSpan&, std::int64_t begin, std::int64_t length) { return m_flatParams.narrow(0, begin, length); },
      settings);
}

ShardedAdamW::ShardedAdamW(Communicator& communicator, const FlatLayout& layout, const std::vector<ShardSpan>& spans,
                           torch::Tensor shardValues, AdamWSettings settings)
    : m_comm(communicator), m_layout(layout), m_floats(shardValues.options()), m_spans(spans) {
  const int w = communicator.worldSize();
  optimizeOwnPieces(
      [&](const ShardSpan& span, std::int64_t begin, std::int64_t length) {
        const std::int64_t mine = span.begin + span.chunk * communicator.rank();
        return shardValues.narrow(0, span.begin / w + (begin - mine), length);
      },
      settings);
}

template <typename ValuesAt>
void ShardedAdamW::optimizeOwnPieces(ValuesAt valuesAt, AdamWSettings settings) {
  std::vector<OptimizedParameter> pieces;
  for (const ShardSpan& span : m_spans) {
    const std::int64_t mine = span.begin + span.chunk * m_comm.rank();
    for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
      const FlatSlot& slot = m_layout.slots[i];
      const std::int64_t begin = std::max(slot.offset, mine);
      const std::int64_t end = std::min(slot.offset + slot.numel, mine + span.chunk);
      if (begin >= end) continue;
      pieces.push_back({segmentName(m_segments.size()), valuesAt(span, begin, end - begin), slot.decay,
                        span.grad.narrow(0, begin - mine, end - begin)});
      m_segments.push_back({i, begin, end - begin});
    }
  }
  m_adam = std::make_unique<AdamW>(std::move(pieces), settings);
}

void ShardedAdamW::step(double lr, const torch::Tensor& apply) {
  m_adam->step(lr, apply);
  if (!m_flatParams.defined()) return;  // zero3: the shard is all there is
  torch::NoGradGuard noGrad;
  for (const ShardSpan& span : m_spans)
    m_comm.allgatherInPlace(m_flatParams.narrow(0, span.begin, span.chunk * m_comm.worldSize()));
}

StreamedTensors ShardedAdamW::wholeStateTensors() {
  auto pieces = std::make_shared<std::map<std::string, torch::Tensor>>();
  torch::Tensor step;
  for (auto& [name, tensor] : m_adam->state()) {
    if (name == "step")
      step = tensor;
    else
      (*pieces)[name] = tensor;
  }
  auto segmentsOfSlot = std::make_shared<std::vector<std::vector<std::size_t>>>(m_layout.slots.size());
  for (std::size_t s = 0; s < m_segments.size(); ++s) (*segmentsOfSlot)[m_segments[s].slot].push_back(s);
  // Tensor by tensor, summed into rank 0 (the ranks' parts are disjoint: the sum is the whole),
  // so no rank ever holds more than one parameter's moment of it.
  StreamedTensors out;
  for (const std::string moment : {"exp_avg/", "exp_avg_sq/"}) {
    for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
      const FlatSlot& slot = m_layout.slots[i];
      const auto produce = [this, pieces, segmentsOfSlot, moment, i] {
        torch::NoGradGuard noGrad;
        const FlatSlot& slot = m_layout.slots[i];
        auto whole = torch::zeros({slot.numel}, m_floats);
        for (std::size_t s : (*segmentsOfSlot)[i])
          whole.narrow(0, m_segments[s].flatBegin - slot.offset, m_segments[s].length)
              .copy_(pieces->at(moment + segmentName(s)));
        m_comm.reduce(whole, 0);
        return m_comm.rank() == 0 ? whole.view(slot.parameter.sizes()) : torch::Tensor();
      };
      out.push_back(
          {moment + slot.name, c10::typeMetaToScalarType(m_floats.dtype()), slot.parameter.sizes().vec(), produce});
    }
  }
  out.push_back(streamedAtHand("step", step));
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

void ShardedAdamW::loadWholeStateTensor(const std::string& name, const torch::Tensor& whole) {
  if (name == "step") return m_adam->loadWholeStateTensor(name, whole);
  bool known = false;
  for (std::size_t s = 0; s < m_segments.size(); ++s) {
    const Segment& segment = m_segments[s];
    const FlatSlot& slot = m_layout.slots[segment.slot];
    for (const std::string moment : {"exp_avg/", "exp_avg_sq/"}) {
      if (name != moment + slot.name) continue;
      if (whole.numel() != slot.numel)
        throw std::runtime_error("optimizer state tensor " + name + " has the wrong shape for this model");
      m_adam->loadWholeStateTensor(moment + segmentName(s),
                                   whole.reshape(-1).narrow(0, segment.flatBegin - slot.offset, segment.length));
      known = true;
    }
  }
  // A parameter none of whose elements this rank owns has nothing to take.
  if (!known)
    for (const FlatSlot& slot : m_layout.slots)
      known = known || name == "exp_avg/" + slot.name || name == "exp_avg_sq/" + slot.name;
  if (!known) throw std::runtime_error("this model's optimizer state has no tensor " + name);
}

}  // namespace traindeck
