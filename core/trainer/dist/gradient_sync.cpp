// A gradient hook runs before autograd adds the new gradient into .grad, so the slot receives
// grad + .grad (what earlier micro-steps accumulated), scaled by 1/W: the all-reduce's sum is
// then the average. The padding at the end of the flat buffer (of each bucket under zero2) stays
// zero. Under zero2 bucket b's chunk lands at b.begin / W of the shard: buckets are contiguous
// from 0 and each is a multiple of W long.
#include "gradient_sync.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace traindeck {

namespace {

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

double coveredBefore(std::vector<std::pair<double, double>> intervals, double cutoff) {
  std::sort(intervals.begin(), intervals.end());
  double covered = 0, reach = -INFINITY;
  for (auto [start, end] : intervals) {
    end = std::min(end, cutoff);
    start = std::max(start, reach);
    if (end <= start) continue;
    covered += end - start;
    reach = end;
  }
  return covered;
}

GradientSync::GradientSync(Communicator& communicator, FlatLayout layout, double bucketMb, const torch::Device& device,
                           GradientReduction reduction)
    : m_comm(communicator),
      m_layout(std::move(layout)),
      m_reduction(reduction),
      m_floats(torch::TensorOptions().dtype(torch::kFloat).device(device)) {
  if (m_reduction == GradientReduction::AllReduce) {
    m_flat = torch::zeros({m_layout.padded}, m_floats);
  } else {
    if (m_layout.buckets.empty() && !m_layout.slots.empty())
      throw std::logic_error("GradientSync: reduce-scatter needs a layout from makeBucketedShardLayout");
    m_shard = torch::zeros({m_layout.shardSize(m_comm.worldSize())}, m_floats);
  }
  const auto limit = bucketElements(bucketMb);
  for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
    const FlatSlot& slot = m_layout.slots[i];
    if (!m_layout.buckets.empty()) {
      while (m_buckets.size() < m_layout.buckets.size() &&
             (m_buckets.empty() || slot.offset >= m_layout.buckets[m_buckets.size() - 1].end)) {
        const FlatBucket& planned = m_layout.buckets[m_buckets.size()];
        Bucket& added = m_buckets.emplace_back();
        added.begin = planned.begin;
        added.end = planned.end;
      }
    } else if (m_buckets.empty() || m_buckets.back().end - m_buckets.back().begin >= limit) {
      m_buckets.emplace_back().begin = slot.offset;
    }
    Bucket& bucket = m_buckets.back();
    if (m_layout.buckets.empty()) bucket.end = slot.offset + slot.numel;
    ++bucket.slotCount;
    m_bucketOfSlot.push_back(static_cast<int>(m_buckets.size() - 1));
  }
  if (!m_buckets.empty() && m_layout.buckets.empty()) m_buckets.back().end = m_layout.padded;
  m_filled.assign(m_layout.slots.size(), false);
  for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
    torch::Tensor parameter = m_layout.slots[i].parameter;
    parameter.register_hook([this, i](const torch::Tensor& grad) { onGradient(i, grad); });
  }
}

void GradientSync::beginStep() {
  if (m_shard.defined()) m_shard.zero_();
}

std::vector<ShardSpan> GradientSync::shardSpans() const {
  const int w = m_comm.worldSize(), r = m_comm.rank();
  if (m_reduction == GradientReduction::AllReduce) {
    const std::int64_t chunk = m_layout.shardSize(w);
    return {{0, chunk, m_flat.narrow(0, r * chunk, chunk)}};
  }
  std::vector<ShardSpan> spans;
  for (const Bucket& b : m_buckets) {
    const std::int64_t chunk = (b.end - b.begin) / w;
    spans.push_back({b.begin, chunk, m_shard.narrow(0, b.begin / w, chunk)});
  }
  return spans;
}

torch::Tensor GradientSync::slotBuffer(std::size_t index) {
  const FlatSlot& slot = m_layout.slots[index];
  if (m_reduction == GradientReduction::AllReduce) return m_flat.narrow(0, slot.offset, slot.numel);
  Bucket& bucket = m_buckets[static_cast<std::size_t>(m_bucketOfSlot[index])];
  if (!bucket.staging.defined()) bucket.staging = torch::zeros({bucket.end - bucket.begin}, m_floats);
  return bucket.staging.narrow(0, slot.offset - bucket.begin, slot.numel);
}

// Autograd sets a parameter's .grad right after its hook; by the next hook it has, and under
// zero2 nothing reads it (its values are in a bucket), so it is dropped there.
void GradientSync::releaseHeldGradients() {
  for (std::size_t index : m_held) {
    torch::Tensor parameter = m_layout.slots[index].parameter;
    parameter.mutable_grad() = torch::Tensor();
  }
  m_held.clear();
}

void GradientSync::arm() {
  m_armed = true;
  m_nextToLaunch = 0;
  for (Bucket& b : m_buckets) {
    b.slotsLeft = b.slotCount;
    b.work.reset();
  }
  std::fill(m_filled.begin(), m_filled.end(), false);
}

void GradientSync::onGradient(std::size_t index, const torch::Tensor& grad) {
  if (!m_armed || m_filled[index]) return;
  torch::NoGradGuard noGrad;
  releaseHeldGradients();
  const FlatSlot& slot = m_layout.slots[index];
  auto destination = slotBuffer(index);
  destination.copy_(grad.reshape(-1));
  if (const torch::Tensor& earlier = slot.parameter.grad(); earlier.defined()) destination.add_(earlier.reshape(-1));
  destination.mul_(1.0 / m_comm.worldSize());
  m_filled[index] = true;
  if (m_reduction == GradientReduction::ReduceScatter) m_held.push_back(index);
  --m_buckets[static_cast<std::size_t>(m_bucketOfSlot[index])].slotsLeft;
  launchReadyBuckets();
}

void GradientSync::launchReadyBuckets() {
  while (m_nextToLaunch < m_buckets.size() && m_buckets[m_nextToLaunch].slotsLeft == 0)
    launch(m_buckets[m_nextToLaunch++]);
  // Reduce-scatter: a bucket whose sum has arrived gives up its staging at once, so backward
  // holds only the buckets still in flight.
  if (m_reduction == GradientReduction::ReduceScatter)
    for (std::size_t i = 0; i < m_nextToLaunch; ++i)
      if (m_buckets[i].staging.defined() && m_buckets[i].work->isCompleted()) harvest(m_buckets[i]);
}

// Only once its work is complete (a failed one throws in wait()). The staging goes back.
void GradientSync::harvest(Bucket& bucket) {
  const int w = m_comm.worldSize();
  m_shard.narrow(0, bucket.begin / w, (bucket.end - bucket.begin) / w).add_(bucket.scatter.result());
  bucket.scatter = {};
  bucket.staging = torch::Tensor();
}

void GradientSync::launch(Bucket& bucket) {
  bucket.launchedAt = steadySeconds();
  bucket.doneAt = std::make_shared<std::atomic<double>>(0.0);
  if (m_reduction == GradientReduction::AllReduce) {
    auto view = m_flat.narrow(0, bucket.begin, bucket.end - bucket.begin);
    bucket.work = m_comm.allreduceAsync(view);
  } else {
    if (!bucket.staging.defined()) bucket.staging = torch::zeros({bucket.end - bucket.begin}, m_floats);
    bucket.scatter = m_comm.reduceScatterAsync(bucket.staging);
    bucket.work = bucket.scatter.work;
  }
  // Runs on the communication thread when the data has arrived (or at once if it already has).
  bucket.work->getFuture()->addCallback([done = bucket.doneAt](c10::ivalue::Future&) { *done = steadySeconds(); });
  ++m_launched;
}

void GradientSync::finish() {
  torch::NoGradGuard noGrad;
  const double backwardEnded = steadySeconds();
  // A parameter that got no gradient this time (unused in the forward) counts as zero, so
  // every rank still launches every bucket in the same order.
  for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
    if (m_filled[i]) continue;
    const FlatSlot& slot = m_layout.slots[i];
    auto destination = slotBuffer(i);
    if (slot.parameter.grad().defined())
      destination.copy_(slot.parameter.grad().reshape(-1)).mul_(1.0 / m_comm.worldSize());
    else
      destination.zero_();
    m_filled[i] = true;
    --m_buckets[static_cast<std::size_t>(m_bucketOfSlot[i])].slotsLeft;
  }
  launchReadyBuckets();
  const double started = steadySeconds();
  const bool scatter = m_reduction == GradientReduction::ReduceScatter;
  for (Bucket& b : m_buckets) m_comm.wait(b.work, scatter ? "gradient reduce-scatter" : "gradient all-reduce");
  const double waited = steadySeconds();
  m_exposedSeconds = waited - started;
  std::vector<std::pair<double, double>> running;
  for (const Bucket& b : m_buckets)
    if (b.doneAt) running.emplace_back(b.launchedAt, *b.doneAt > 0 ? b.doneAt->load() : waited);
  m_overlapSeconds = coveredBefore(std::move(running), backwardEnded);
  m_armed = false;
  if (scatter) {
    for (Bucket& b : m_buckets)
      if (b.staging.defined()) harvest(b);
    m_held.clear();
    for (const FlatSlot& slot : m_layout.slots) {
      torch::Tensor parameter = slot.parameter;
      parameter.mutable_grad() = torch::Tensor();
    }
    return;
  }
  for (const FlatSlot& slot : m_layout.slots) {
    torch::Tensor parameter = slot.parameter;
    parameter.mutable_grad() = m_flat.narrow(0, slot.offset, slot.numel).view(parameter.sizes());
  }
}

}  // namespace traindeck
