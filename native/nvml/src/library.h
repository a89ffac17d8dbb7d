// Loading libnvidia-ml at run time (dlopen / LoadLibrary) and resolving the entry points we use.
// Required entry points missing → the load fails with the symbol's name; optional ones are left null
// and the reader treats them like NVML_ERROR_NOT_SUPPORTED (an older driver).
#pragma once

#include <string>
#include <vector>

#include "nvml_types.h"

namespace nvml {

struct Api {
  InitFn init = nullptr;
  ShutdownFn shutdown = nullptr;
  ErrorStringFn errorString = nullptr;
  SystemStringFn driverVersion = nullptr;
  SystemStringFn nvmlVersion = nullptr;
  DeviceGetCountFn getCount = nullptr;
  DeviceGetHandleByIndexFn getHandle = nullptr;
  DeviceStringFn getName = nullptr;
  DeviceStringFn getUuid = nullptr;
  DeviceGetPciInfoFn getPciInfo = nullptr;
  DeviceGetMemoryInfoV2Fn memoryV2 = nullptr;
  DeviceGetMemoryInfoFn memoryV1 = nullptr;
  DeviceGetUtilizationRatesFn utilization = nullptr;
  DeviceGetClockInfoFn clockInfo = nullptr;
  DeviceGetUintFn powerUsage = nullptr;
  DeviceGetTemperatureFn temperature = nullptr;
  DeviceGetUllFn clocksEventReasons = nullptr;
  DeviceGetTotalEccErrorsFn totalEccErrors = nullptr;
  DeviceGetProcessesV2Fn processes = nullptr;
  DeviceGetProcessesV1Fn processesV1 = nullptr;
  EventSetCreateFn eventSetCreate = nullptr;
  EventSetFreeFn eventSetFree = nullptr;
  DeviceRegisterEventsFn registerEvents = nullptr;
  EventSetWaitFn eventSetWaitV2 = nullptr;
  EventSetWaitFn eventSetWaitV1 = nullptr;

  // The symbol each versioned entry point resolved to ("" when absent), and the entry points (first
  // choice of each) the library lacks, for diagnostics.
  std::string memorySymbol, processesSymbol, clocksEventSymbol, eventWaitSymbol;
  std::vector<std::string> missing;
};

class Library {
 public:
  // Loads `path` and resolves the entry points; on failure answers false with `error` set.
  bool Load(const std::string& path, std::string& error);
  void Unload();
  bool loaded() const { return handle_ != nullptr; }
  const Api& api() const { return api_; }
  const std::string& path() const { return path_; }

 private:
  void* Symbol(const char* name) const;
  void* handle_ = nullptr;
  std::string path_;
  Api api_;
};

}  // namespace nvml
