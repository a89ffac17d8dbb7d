#include "device_reader.h"

#include "errors.h"

namespace nvml {

namespace {

// Answers whether the call succeeded; records why not, unless the field is simply unsupported.
bool Ok(const Api& api, Return r, const char* field, const char* function, DeviceSample& s) {
  if (r == SUCCESS) return true;
  if (r == ERROR_GPU_IS_LOST) {
    s.lost = true;
  } else if (r != ERROR_NOT_SUPPORTED && r != ERROR_FUNCTION_NOT_FOUND) {
    s.errors.emplace_back(field, Describe(api, function, r));
  }
  return false;
}

void ReadMemory(const Api& api, DeviceEntry& d, DeviceSample& s) {
  if (api.memoryV2 && !d.memoryV2Refused) {
    MemoryV2 m{};
    m.version = MEMORY_V2_VERSION;
    Return r = api.memoryV2(d.handle, &m);
    if (r == SUCCESS) {
      s.memTotal = m.total;
      s.memFree = m.free;
      s.memUsed = m.used;
      s.memReserved = m.reserved;
      return;
    }
    if (r != ERROR_ARGUMENT_VERSION_MISMATCH && r != ERROR_FUNCTION_NOT_FOUND && r != ERROR_NOT_SUPPORTED) {
      Ok(api, r, "memory", "nvmlDeviceGetMemoryInfo_v2", s);
      return;
    }
    d.memoryV2Refused = true;
  }
  if (!api.memoryV1) return;
  Memory m{};
  if (Ok(api, api.memoryV1(d.handle, &m), "memory", "nvmlDeviceGetMemoryInfo", s)) {
    s.memTotal = m.total;
    s.memFree = m.free;
    s.memUsed = m.used;
  }
}

std::optional<unsigned long long> Known(unsigned long long v) {
  if (v == VALUE_NOT_AVAILABLE) return std::nullopt;
  return v;
}

// Keeps one buffer per process (the sampler is single-threaded) so a sample allocates nothing new.
template <typename Info, typename Fn>
void ReadProcessList(const Api& api, Fn fn, const char* function, Device h, DeviceSample& s) {
  static thread_local std::vector<Info> buf(64);
  for (int attempt = 0; attempt < 3; ++attempt) {
    unsigned int count = static_cast<unsigned int>(buf.size());
    Return r = fn(h, &count, buf.data());
    if (r == ERROR_INSUFFICIENT_SIZE) {
      buf.resize(count + 16);  // processes may start between the two calls
      continue;
    }
    if (!Ok(api, r, "processes", function, s)) return;
    std::vector<ProcessUse> out;
    out.reserve(count);
    for (unsigned int i = 0; i < count && i < buf.size(); ++i) out.push_back({buf[i].pid, Known(buf[i].usedGpuMemory)});
    s.processes = std::move(out);
    return;
  }
  s.errors.emplace_back("processes", std::string(function) + ": the process list kept growing between calls");
}

}  // namespace

void ReadDevice(const Api& api, DeviceEntry& d, DeviceSample& s) {
  if (!d.handle) {
    if (d.handleError == ERROR_GPU_IS_LOST) s.lost = true;
    else s.errors.emplace_back("handle", Describe(api, "nvmlDeviceGetHandleByIndex_v2", d.handleError));
    return;
  }
  ReadMemory(api, d, s);
  if (s.lost) return;

  if (api.utilization) {
    Utilization u{};
    if (Ok(api, api.utilization(d.handle, &u), "utilization", "nvmlDeviceGetUtilizationRates", s)) {
      s.utilGpu = u.gpu;
      s.utilMem = u.memory;
    }
    if (s.lost) return;
  }
  unsigned int v = 0;
  if (api.clockInfo) {
    if (Ok(api, api.clockInfo(d.handle, CLOCK_SM, &v), "sm_clock", "nvmlDeviceGetClockInfo(SM)", s)) s.smClockMhz = v;
    if (s.lost) return;
    if (Ok(api, api.clockInfo(d.handle, CLOCK_MEM, &v), "mem_clock", "nvmlDeviceGetClockInfo(MEM)", s)) s.memClockMhz = v;
    if (s.lost) return;
  }
  if (api.powerUsage) {
    if (Ok(api, api.powerUsage(d.handle, &v), "power", "nvmlDeviceGetPowerUsage", s)) s.powerMw = v;
    if (s.lost) return;
  }
  if (api.temperature) {
    if (Ok(api, api.temperature(d.handle, TEMPERATURE_GPU, &v), "temperature", "nvmlDeviceGetTemperature", s)) s.tempC = v;
    if (s.lost) return;
  }
  unsigned long long ull = 0;
  if (api.clocksEventReasons) {
    if (Ok(api, api.clocksEventReasons(d.handle, &ull), "clocks_event_reasons", api.clocksEventSymbol.c_str(), s)) s.clocksEventReasons = ull;
    if (s.lost) return;
  }
  if (api.totalEccErrors) {
    if (Ok(api, api.totalEccErrors(d.handle, MEMORY_ERROR_TYPE_UNCORRECTED, VOLATILE_ECC, &ull), "ecc_dbe_volatile", "nvmlDeviceGetTotalEccErrors(volatile)", s))
      s.eccDbeVolatile = ull;
    if (s.lost) return;
    if (Ok(api, api.totalEccErrors(d.handle, MEMORY_ERROR_TYPE_UNCORRECTED, AGGREGATE_ECC, &ull), "ecc_dbe_aggregate", "nvmlDeviceGetTotalEccErrors(aggregate)", s))
      s.eccDbeAggregate = ull;
    if (s.lost) return;
  }
  if (api.processes) ReadProcessList<ProcessInfoV2>(api, api.processes, api.processesSymbol.c_str(), d.handle, s);
  else if (api.processesV1) ReadProcessList<ProcessInfoV1>(api, api.processesV1, api.processesSymbol.c_str(), d.handle, s);
}

}  // namespace nvml
