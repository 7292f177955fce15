// A gradient hook runs before autograd adds the new gradient into .grad, so the slot receives
// grad + .grad (what earlier micro-steps accumulated), scaled by 1/W: the all-reduce's sum is
// then the average. The padding at the end of the flat buffer stays zero.
#include "gradient_sync.h"

#include <algorithm>
#include <chrono>
#include <cmath>

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

GradientSync::GradientSync(Communicator& communicator, FlatLayout layout, double bucketMb, const torch::Device& device)
    : m_comm(communicator), m_layout(std::move(layout)) {
  m_flat = torch::zeros({m_layout.padded}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  const auto bucketElements = std::max<std::int64_t>(1, static_cast<std::int64_t>(bucketMb * (1 << 20) / 4));
  for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
    const FlatSlot& slot = m_layout.slots[i];
    if (m_buckets.empty() || m_buckets.back().end - m_buckets.back().begin >= bucketElements)
      m_buckets.emplace_back().begin = slot.offset;
    Bucket& bucket = m_buckets.back();
    bucket.end = slot.offset + slot.numel;
    ++bucket.slotCount;
    m_bucketOfSlot.push_back(static_cast<int>(m_buckets.size() - 1));
  }
  if (!m_buckets.empty()) m_buckets.back().end = m_layout.padded;
  m_filled.assign(m_layout.slots.size(), false);
  for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
    torch::Tensor parameter = m_layout.slots[i].parameter;
    parameter.register_hook([this, i](const torch::Tensor& grad) { onGradient(i, grad); });
  }
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
  const FlatSlot& slot = m_layout.slots[index];
  auto destination = m_flat.narrow(0, slot.offset, slot.numel);
  destination.copy_(grad.reshape(-1));
  if (const torch::Tensor& earlier = slot.parameter.grad(); earlier.defined()) destination.add_(earlier.reshape(-1));
  destination.mul_(1.0 / m_comm.worldSize());
  m_filled[index] = true;
  --m_buckets[static_cast<std::size_t>(m_bucketOfSlot[index])].slotsLeft;
  launchReadyBuckets();
}

void GradientSync::launchReadyBuckets() {
  while (m_nextToLaunch < m_buckets.size() && m_buckets[m_nextToLaunch].slotsLeft == 0)
    launch(m_buckets[m_nextToLaunch++]);
}

void GradientSync::launch(Bucket& bucket) {
  auto view = m_flat.narrow(0, bucket.begin, bucket.end - bucket.begin);
  bucket.launchedAt = steadySeconds();
  bucket.doneAt = std::make_shared<std::atomic<double>>(0.0);
  bucket.work = m_comm.allreduceAsync(view);
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
    auto destination = m_flat.narrow(0, slot.offset, slot.numel);
    if (slot.parameter.grad().defined())
      destination.copy_(slot.parameter.grad().reshape(-1)).mul_(1.0 / m_comm.worldSize());
    else
      destination.zero_();
    m_filled[i] = true;
    --m_buckets[static_cast<std::size_t>(m_bucketOfSlot[i])].slotsLeft;
  }
  launchReadyBuckets();
  const double started = steadySeconds();
  for (Bucket& b : m_buckets) m_comm.wait(b.work, "gradient all-reduce");
  const double waited = steadySeconds();
  m_exposedSeconds = waited - started;
  std::vector<std::pair<double, double>> running;
  for (const Bucket& b : m_buckets)
    if (b.doneAt) running.emplace_back(b.launchedAt, *b.doneAt > 0 ? b.doneAt->load() : waited);
  m_overlapSeconds = coveredBefore(std::move(running), backwardEnded);
  for (const FlatSlot& slot : m_layout.slots) {
    torch::Tensor parameter = slot.parameter;
    parameter.mutable_grad() = m_flat.narrow(0, slot.offset, slot.numel).view(parameter.sizes());
  }
  m_armed = false;
}

}  // namespace traindeck
