// Spellings of RunConfig's enums. The first name of each table is never an alias.
#include "enum_names.h"

namespace traindeck {

namespace {
constexpr std::pair<StrategyKind, std::string_view> kStrategyKinds[] = {
    {StrategyKind::Single, "single"}, {StrategyKind::Ddp, "ddp"}, {StrategyKind::Zero1, "zero1"},
    {StrategyKind::Zero2, "zero2"}, {StrategyKind::Zero3, "zero3"}};
constexpr std::pair<DeviceKind, std::string_view> kDeviceKinds[] = {
    {DeviceKind::Auto, "auto"}, {DeviceKind::Cpu, "cpu"}, {DeviceKind::Cuda, "cuda"}};
constexpr std::pair<Backend, std::string_view> kBackends[] = {
    {Backend::Auto, "auto"}, {Backend::Gloo, "gloo"}, {Backend::Nccl, "nccl"}};
constexpr std::pair<Precision, std::string_view> kPrecisions[] = {
    {Precision::Fp32, "fp32"}, {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"}};
constexpr std::pair<Decay, std::string_view> kDecays[] = {
    {Decay::Cosine, "cosine"}, {Decay::Linear, "linear"}, {Decay::Constant, "constant"}};
constexpr std::pair<TokenizerKind, std::string_view> kTokenizers[] = {
    {TokenizerKind::Byte, "byte"}, {TokenizerKind::Gpt2, "gpt2"}};
constexpr std::pair<OptimizerKind, std::string_view> kOptimizers[] = {
    {OptimizerKind::AdamW, "adamw"}};
constexpr std::pair<TargetKind, std::string_view> kTargets[] = {
    {TargetKind::Local, "local"}, {TargetKind::Ssh, "ssh"}, {TargetKind::Slurm, "slurm"}};
constexpr std::pair<SlurmBuild, std::string_view> kSlurmBuilds[] = {
    {SlurmBuild::Login, "login"}, {SlurmBuild::Job, "job"}};
}  // namespace

template <> EnumNames<StrategyKind> enumNames() { return kStrategyKinds; }
template <> EnumNames<DeviceKind> enumNames() { return kDeviceKinds; }
template <> EnumNames<Backend> enumNames() { return kBackends; }
template <> EnumNames<Precision> enumNames() { return kPrecisions; }
template <> EnumNames<Decay> enumNames() { return kDecays; }
template <> EnumNames<TokenizerKind> enumNames() { return kTokenizers; }
template <> EnumNames<OptimizerKind> enumNames() { return kOptimizers; }
template <> EnumNames<TargetKind> enumNames() { return kTargets; }
template <> EnumNames<SlurmBuild> enumNames() { return kSlurmBuilds; }

}  // namespace traindeck
