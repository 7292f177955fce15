// A stand-in for libnvidia-ml.so.1 with the seven functions GpuStats uses: one device with
// fixed figures, so the dlopen path is tested on machines without a GPU.
struct Utilization {
  unsigned gpu, memory;
};
struct Memory {
  unsigned long long total, free, used;
};

extern "C" {

static int device = 42;

int nvmlInit_v2(void) {
  return 0;
}
int nvmlShutdown(void) {
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** handle) {
  if (index != 0) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *handle = &device;
  return 0;
}
int nvmlDeviceGetUtilizationRates(void* handle, Utilization* u) {
  (void)handle;
  u->gpu = 87;
  u->memory = 40;
  return 0;
}
int nvmlDeviceGetMemoryInfo(void* handle, Memory* m) {
  (void)handle;
  m->total = 80ull << 30;
  m->used = 12ull << 30;
  m->free = m->total - m->used;
  return 0;
}
int nvmlDeviceGetPowerUsage(void* handle, unsigned* milliwatts) {
  (void)handle;
  *milliwatts = 312500;
  return 0;
}
int nvmlDeviceGetTemperature(void* handle, int sensor, unsigned* celsius) {
  (void)handle;
  (void)sensor;
  *celsius = 64;
  return 0;
}
}
