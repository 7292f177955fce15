// Units are contiguous from 0, each padded to a multiple of W, so unit u's chunk of a shard is at
// u.begin / W and rank r's part of the unit is flat [u.begin + r·chunk, u.begin + (r+1)·chunk).
// Gloo (and LibTorch 1.13) gathers as an all-reduce of the unit with the other chunks zeroed and
// reduce-scatters as an all-reduce (compat:: in torch_compat.h); NCCL does both natively.
#include "sharded_units.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace traindeck {

namespace {

double clockSeconds() {  // the steady clock, in seconds
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// For each parameter of `slots` that overlaps the flat stretch [mine, mine + chunk): the slot,
// where the overlap starts in the parameter and in the stretch, and how long it is.
template <typename Visit>
void forEachOwnPiece(const FlatLayout& layout, const std::vector<std::size_t>& slots, std::int64_t mine,
                     std::int64_t chunk, Visit visit) {
  for (std::size_t index : slots) {
    const FlatSlot& slot = layout.slots[index];
    const std::int64_t begin = std::max(slot.offset, mine);
    const std::int64_t end = std::min(slot.offset + slot.numel, mine + chunk);
    if (begin < end) visit(slot, begin - slot.offset, begin - mine, end - begin);
  }
}

}  // namespace

ShardedUnits::ShardedUnits(Communicator& communicator, const std::vector<NamedParameters>& units,
                           const torch::Device& device)
    : m_comm(communicator), m_floats(torch::TensorOptions().dtype(torch::kFloat).device(device)) {
  torch::NoGradGuard noGrad;
  const std::int64_t w = communicator.worldSize();
  std::int64_t offset = 0;
  for (const NamedParameters& unit : units) {
    FlatBucket bucket{offset, offset};
    std::vector<std::size_t>& slots = m_slotsOfUnit.emplace_back();
    for (const auto& [name, parameter] : unit) {
      slots.push_back(m_layout.slots.size());
      m_layout.slots.push_back({name, parameter, offset, parameter.numel(), parameter.dim() >= 2});
      offset += parameter.numel();
      m_layout.total += parameter.numel();
    }
    bucket.end = bucket.begin + (offset - bucket.begin + w - 1) / w * w;
    offset = bucket.end;
    m_layout.buckets.push_back(bucket);
  }
  m_layout.padded = offset;
  m_values = torch::zeros({offset / w}, m_floats);
  m_grads = torch::zeros({offset / w}, m_floats);
  m_placeholder = torch::full({1}, NAN, m_floats);
  for (int u = 0; u < unitCount(); ++u) {
    const std::int64_t chunk = unitLength(u) / w;
    auto own = ownChunk(m_values, u);
    forEachOwnPiece(m_layout, m_slotsOfUnit[u], m_layout.buckets[u].begin + chunk * m_comm.rank(), chunk,
                    [&](const FlatSlot& slot, std::int64_t inSlot, std::int64_t inChunk, std::int64_t length) {
                      own.narrow(0, inChunk, length).copy_(slot.parameter.reshape(-1).narrow(0, inSlot, length));
                    });
    release(u);
  }
}

std::int64_t ShardedUnits::unitLength(int unit) const {
  const FlatBucket& b = m_layout.buckets[static_cast<std::size_t>(unit)];
  return b.end - b.begin;
}

std::int64_t ShardedUnits::largestUnitElements() const {
  std::int64_t largest = 0;
  for (int u = 0; u < unitCount(); ++u) largest = std::max(largest, unitLength(u));
  return largest;
}

torch::Tensor ShardedUnits::ownChunk(const torch::Tensor& shard, int unit) const {
  const std::int64_t w = m_comm.worldSize();
  return shard.narrow(0, m_layout.buckets[static_cast<std::size_t>(unit)].begin / w, unitLength(unit) / w);
}

std::vector<ShardSpan> ShardedUnits::shardSpans() const {
  std::vector<ShardSpan> spans;
  for (int u = 0; u < unitCount(); ++u)
    spans.push_back({m_layout.buckets[static_cast<std::size_t>(u)].begin, unitLength(u) / m_comm.worldSize(),
                     ownChunk(m_grads, u)});
  return spans;
}

std::vector<torch::Tensor> ShardedUnits::parameters(int unit) const {
  std::vector<torch::Tensor> out;
  for (std::size_t index : m_slotsOfUnit[static_cast<std::size_t>(unit)])
    out.push_back(m_layout.slots[index].parameter);
  return out;
}

ShardedUnits::Gathering ShardedUnits::startGather(int unit) {
  torch::NoGradGuard noGrad;
  const std::int64_t chunk = unitLength(unit) / m_comm.worldSize();
  auto buffer = torch::empty({unitLength(unit)}, m_floats);
  buffer.narrow(0, chunk * m_comm.rank(), chunk).copy_(ownChunk(m_values, unit));
  auto work = m_comm.allgatherInPlaceAsync(buffer);
  // Timed from the launch's return: on Gloo the launch zeroes the other chunks, which is compute.
  Gathering gathering{unit, buffer, work, clockSeconds(), std::make_shared<std::atomic<double>>(0.0)};
  // Runs on the communication thread when the data has arrived (or at once if it already has).
  gathering.work->getFuture()->addCallback([done = gathering.doneAt](c10::ivalue::Future&) { *done = clockSeconds(); });
  return gathering;
}

void ShardedUnits::prefetch(int unit) {
  if (m_whole.count(unit)) return;
  for (const Gathering& g : m_prefetched)
    if (g.unit == unit) return;
  m_prefetched.push_back(startGather(unit));
}

void ShardedUnits::gather(int unit) {
  if (m_whole.count(unit)) return;
  Gathering gathering;
  bool found = false;
  for (auto it = m_prefetched.begin(); it != m_prefetched.end(); ++it)
    if (it->unit == unit) {
      gathering = std::move(*it);
      m_prefetched.erase(it);
      found = true;
      break;
    }
  if (!found) gathering = startGather(unit);
  m_gatherWaitSeconds += wait(gathering.work, "parameter all-gather");
  const double done = gathering.doneAt->load();
  m_gatherSeconds += (done > 0 ? done : clockSeconds()) - gathering.startedAt;
  const std::int64_t begin = m_layout.buckets[static_cast<std::size_t>(unit)].begin;
  torch::NoGradGuard noGrad;
  for (std::size_t index : m_slotsOfUnit[static_cast<std::size_t>(unit)]) {
    const FlatSlot& slot = m_layout.slots[index];
    torch::Tensor parameter = slot.parameter;
    parameter.set_data(gathering.buffer.narrow(0, slot.offset - begin, slot.numel).view(parameter.sizes()));
  }
  m_whole[unit] = gathering.buffer;
}

void ShardedUnits::release(int unit) {
  torch::NoGradGuard noGrad;
  for (std::size_t index : m_slotsOfUnit[static_cast<std::size_t>(unit)]) {
    torch::Tensor parameter = m_layout.slots[index].parameter;
    parameter.set_data(m_placeholder.expand(parameter.sizes()));
  }
  m_whole.erase(unit);
}

void ShardedUnits::reduceGradients(int unit, const std::vector<torch::Tensor>& gradients) {
  torch::NoGradGuard noGrad;
  const auto& slots = m_slotsOfUnit[static_cast<std::size_t>(unit)];
  if (gradients.size() != slots.size()) throw std::logic_error("ShardedUnits: one gradient per parameter of the unit");
  const std::int64_t begin = m_layout.buckets[static_cast<std::size_t>(unit)].begin;
  auto staging = torch::zeros({unitLength(unit)}, m_floats);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!gradients[i].defined()) continue;
    const FlatSlot& slot = m_layout.slots[slots[i]];
    staging.narrow(0, slot.offset - begin, slot.numel).copy_(gradients[i].reshape(-1));
  }
  staging.mul_(1.0 / m_comm.worldSize());
  m_reductions.push_back({unit, m_comm.reduceScatterAsync(staging)});
  // The sums that have arrived give their staging back; never more than two in flight.
  while (!m_reductions.empty() && (m_reductions.size() > 2 || m_reductions.front().scatter.work->isCompleted())) {
    harvest(m_reductions.front());
    m_reductions.pop_front();
  }
}

void ShardedUnits::harvest(Reduction& reduction) {
  wait(reduction.scatter.work, "gradient reduce-scatter");
  torch::NoGradGuard noGrad;
  ownChunk(m_grads, reduction.unit).add_(reduction.scatter.result());
}

double ShardedUnits::wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
  const double started = clockSeconds();
  m_comm.wait(work, what);
  const double waited = clockSeconds() - started;
  m_exposedSeconds += waited;
  return waited;
}

void ShardedUnits::beginStep() {
  torch::NoGradGuard noGrad;
  m_grads.zero_();
}

void ShardedUnits::arm() {
  m_exposedSeconds = m_gatherSeconds = m_gatherWaitSeconds = 0;
}

void ShardedUnits::finish() {
  while (!m_reductions.empty()) {
    harvest(m_reductions.front());
    m_reductions.pop_front();
  }
  // A prefetch nobody used (a stage that threw) is waited for, so no collective is left behind.
  for (Gathering& g : m_prefetched) wait(g.work, "parameter all-gather");
  m_prefetched.clear();
}

StreamedTensors ShardedUnits::weightTensors() {
  StreamedTensors out;
  for (int u = 0; u < unitCount(); ++u) {
    for (std::size_t index : m_slotsOfUnit[static_cast<std::size_t>(u)]) {
      const FlatSlot& slot = m_layout.slots[index];
      const auto produce = [this, u, index] {
        torch::NoGradGuard noGrad;
        const FlatSlot& slot = m_layout.slots[index];
        const std::int64_t chunk = unitLength(u) / m_comm.worldSize();
        const std::int64_t mine = m_layout.buckets[static_cast<std::size_t>(u)].begin + chunk * m_comm.rank();
        const auto own = ownChunk(m_values, u);
        auto whole = torch::zeros({slot.numel}, m_floats);
        forEachOwnPiece(m_layout, {index}, mine, chunk,
                        [&](const FlatSlot&, std::int64_t inSlot, std::int64_t inChunk, std::int64_t length) {
                          whole.narrow(0, inSlot, length).copy_(own.narrow(0, inChunk, length));
                        });
        m_comm.reduce(whole, 0);  // the ranks' parts are disjoint: their sum is the whole
        return m_comm.rank() == 0 ? whole.view(slot.parameter.sizes()) : torch::Tensor();
      };
      out.push_back({slot.name, c10::typeMetaToScalarType(m_floats.dtype()), slot.parameter.sizes().vec(), produce});
    }
  }
  return out;
}

void ShardedUnits::scatterWeights(const std::map<std::string, torch::Tensor>& whole,
                                  const std::function<void(const torch::Tensor&)>& sent) {
  torch::NoGradGuard noGrad;
  for (int u = 0; u < unitCount(); ++u) {
    const std::int64_t chunk = unitLength(u) / m_comm.worldSize();
    const std::int64_t mine = m_layout.buckets[static_cast<std::size_t>(u)].begin + chunk * m_comm.rank();
    auto own = ownChunk(m_values, u);
    for (std::size_t index : m_slotsOfUnit[static_cast<std::size_t>(u)]) {
      const FlatSlot& slot = m_layout.slots[index];
      torch::Tensor tensor = m_comm.rank() == 0 ? whole.at(slot.name).to(m_floats, false, /*copy=*/true).reshape(-1)
                                                : torch::empty({slot.numel}, m_floats);
      m_comm.broadcast(tensor, 0);
      if (m_comm.rank() == 0 && sent) sent(whole.at(slot.name));
      forEachOwnPiece(m_layout, {index}, mine, chunk,
                      [&](const FlatSlot&, std::int64_t inSlot, std::int64_t inChunk, std::int64_t length) {
                        own.narrow(0, inChunk, length).copy_(tensor.narrow(0, inSlot, length));
                      });
    }
  }
}

}  // namespace traindeck
