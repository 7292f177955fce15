#include "export/export_targets.h"

namespace traindeck {

const std::vector<FrameworkInfo>& exportFrameworks() {
  static const std::vector<FrameworkInfo> kAll = {
      {ExportFramework::TrainDeck, "traindeck", "TrainDeck's own trainer", false, true, true, {"traindeck_build.py"}},
      {ExportFramework::PytorchDdp,
       "pytorch-ddp",
       "PyTorch DDP",
       false,
       true,
       true,
       {"run_writer.py", "token_shards.py", "gpt2_torch.py", "pytorch_sharding.py", "pytorch_ddp.py"}},
      {ExportFramework::TorchXla,
       "torch-xla",
       "PyTorch/XLA",
       true,
       false,
       true,
       {"run_writer.py", "token_shards.py", "gpt2_torch.py", "torch_xla.py"}},
      {ExportFramework::KerasGpu,
       "keras-gpu",
       "Keras 3 + KerasHub, MirroredStrategy",
       false,
       false,
       true,
       {"run_writer.py", "token_shards.py", "keras_train.py", "keras_common.py", "keras_gpu.py"}},
      {ExportFramework::KerasTpu,
       "keras-tpu",
       "Keras 3 + KerasHub, TPUStrategy (not expected to work)",
       true,
       false,
       false,
       {"run_writer.py", "token_shards.py", "keras_train.py", "keras_common.py", "keras_tpu.py"}},
      {ExportFramework::KerasJax,
       "keras-jax",
       "Keras 3 on JAX, keras.distribution.DataParallel",
       true,
       false,
       true,
       {"run_writer.py", "token_shards.py", "keras_jax_setup.py", "keras_common.py", "keras_jax.py"}},
  };
  return kAll;
}

const std::vector<PlaceInfo>& exportPlaces() {
  static const std::vector<PlaceInfo> kAll = {
      {ExportPlace::ColabGpu, "colab-gpu", "Colab, GPU runtime", false, 1,
       "A Colab runtime has exactly one GPU (T4 on the free tier; L4, A100 40GB, H100 or G4 on paid ones): one "
       "rank, whatever strategy.nproc_per_node says.",
       "/content/drive/MyDrive/traindeck/data"},
      {ExportPlace::ColabTpu, "colab-tpu", "Colab, TPU runtime", true, 1,
       "A Colab TPU runtime has one chip (v5e-1, 16 GB; v6e-1, 32 GB, on paid tiers); the 8-core v2-8 was "
       "retired in September 2025.",
       "/content/drive/MyDrive/traindeck/data"},
      {ExportPlace::KaggleT4x2, "kaggle-t4x2", "Kaggle, GPU T4 x2", false, 2,
       "Kaggle's T4 x2 accelerator has two T4 GPUs (16 GB each, no bf16): two ranks.", "/kaggle/input"},
      {ExportPlace::KaggleV5e8, "kaggle-v5e8", "Kaggle, TPU v5e-8", true, 8,
       "Kaggle's TPU v5e-8 has eight v5e chips (16 GB each): eight replicas.", "/kaggle/input"},
      {ExportPlace::Vm, "vm", "A machine of your own or a cloud VM", false, 0,
       "A machine with as many GPUs as strategy.nproc_per_node says (or CPUs, with device: cpu).", ""},
  };
  return kAll;
}

std::optional<FrameworkInfo> frameworkNamed(const std::string& name) {
  for (const FrameworkInfo& f : exportFrameworks())
    if (f.name == name) return f;
  return std::nullopt;
}

std::optional<PlaceInfo> placeNamed(const std::string& name) {
  for (const PlaceInfo& p : exportPlaces())
    if (p.name == name) return p;
  return std::nullopt;
}

std::string targetProblem(const FrameworkInfo& framework, const PlaceInfo& place) {
  if (framework.tpu == place.tpu) return {};
  if (framework.tpu)
    return framework.name + " trains on TPU chips and " + place.name +
           " has GPUs: choose colab-tpu or kaggle-v5e8, or pytorch-ddp / keras-gpu / traindeck for GPUs";
  return framework.name + " trains on GPUs (or CPUs) and " + place.name +
         " has TPU chips: choose torch-xla or keras-jax for a TPU";
}

}  // namespace traindeck
