// A gradient hook runs before autograd adds the new gradient into .grad, so the slot receives
// grad + .grad (what earlier micro-steps accumulated), scaled by 1/W: the all-reduce's sum is
// then the average. The padding at the end of the flat buffer stays zero.
#include "gradient_sync.h"

namespace traindeck {

GradientSync::GradientSync(Communicator& communicator, FlatLayout layout, double bucketMb, const torch::Device& device)
    : m_comm(communicator), m_layout(std::move(layout)) {
  m_flat = torch::zeros({m_layout.padded}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  const auto bucketElements = std::max<std::int64_t>(1, static_cast<std::int64_t>(bucketMb * (1 << 20) / 4));
  for (std::size_t i = 0; i < m_layout.slots.size(); ++i) {
    const FlatSlot& slot = m_layout.slots[i];
    if (m_buckets.empty() || m_buckets.back().end - m_buckets.back().begin >= bucketElements)
      m_buckets.push_back({slot.offset, slot.offset, 0, 0, {}});
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
  m_firstLaunch = {};
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
  if (m_firstLaunch == std::chrono::steady_clock::time_point{}) m_firstLaunch = std::chrono::steady_clock::now();
  auto view = m_flat.narrow(0, bucket.begin, bucket.end - bucket.begin);
  bucket.work = m_comm.allreduceAsync(view);
  ++m_launched;
}

void GradientSync::finish() {
  torch::NoGradGuard noGrad;
  const auto backwardEnded = std::chrono::steady_clock::now();
  m_overlapSeconds = m_firstLaunch == std::chrono::steady_clock::time_point{}
                         ? 0.0
                         : std::chrono::duration<double>(backwardEnded - m_firstLaunch).count();
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
  const auto started = std::chrono::steady_clock::now();
  for (Bucket& b : m_buckets) m_comm.wait(b.work, "gradient all-reduce");
  m_exposedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const FlatSlot& slot : m_layout.slots) {
    torch::Tensor parameter = slot.parameter;
    parameter.mutable_grad() = m_flat.narrow(0, slot.offset, slot.numel).view(parameter.sizes());
  }
  m_armed = false;
}

}  // namespace traindeck
