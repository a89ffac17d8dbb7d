// One device's readings in one pass. A field the device does not support stays empty (null in JS);
// any other failure is kept as text beside the field; NVML_ERROR_GPU_IS_LOST marks the device lost and
// stops reading it, so one GPU falling off the bus costs the others nothing.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "session.h"

namespace nvml {

struct ProcessUse {
  unsigned int pid;
  std::optional<unsigned long long> usedBytes;
};

struct DeviceSample {
  bool lost = false;
  std::optional<unsigned long long> memUsed, memTotal, memFree, memReserved;
  std::optional<unsigned int> utilGpu, utilMem, smClockMhz, memClockMhz, powerMw, tempC;
  std::optional<unsigned long long> clocksEventReasons, eccDbeVolatile, eccDbeAggregate;
  std::optional<std::vector<ProcessUse>> processes;
  // field name → "nvmlDeviceGetX: text (NVML_ERROR_…)"
  std::vector<std::pair<const char*, std::string>> errors;
};

void ReadDevice(const Api& api, DeviceEntry& device, DeviceSample& out);

}  // namespace nvml
