#include "library.h"

#include <initializer_list>
#include <type_traits>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace nvml {

namespace {

std::string LastLoadError() {
#ifdef _WIN32
  DWORD code = GetLastError();
  char buf[512] = {0};
  FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, code, 0, buf, sizeof buf, nullptr);
  std::string msg(buf);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r' || msg.back() == ' ')) msg.pop_back();
  return msg + " (error " + std::to_string(code) + ")";
#else
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
#endif
}

void* OpenLibrary(const std::string& path) {
#ifdef _WIN32
  void* h = LoadLibraryA(path.c_str());
  if (!h && path == "nvml.dll") {
    // Older drivers install NVML beside nvidia-smi rather than in System32.
    char dir[MAX_PATH];
    DWORD n = GetEnvironmentVariableA("ProgramW6432", dir, MAX_PATH);
    if (n > 0 && n < MAX_PATH) h = LoadLibraryA((std::string(dir) + "\\NVIDIA Corporation\\NVSMI\\nvml.dll").c_str());
  }
  return h;
#else
  return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
}

void CloseLibrary(void* h) {
#ifdef _WIN32
  FreeLibrary(static_cast<HMODULE>(h));
#else
  dlclose(h);
#endif
}

}  // namespace

void* Library::Symbol(const char* name) const {
#ifdef _WIN32
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(handle_), name));
#else
  return dlsym(handle_, name);
#endif
}

bool Library::Load(const std::string& path, std::string& error) {
  handle_ = OpenLibrary(path);
  if (!handle_) {
    error = path + " not found: " + LastLoadError();
    return false;
  }
  path_ = path;
  api_ = Api();

  // Resolves the first of `names` present; records the chosen name, or the first name as missing.
  auto pick = [this](auto& slot, std::initializer_list<const char*> names, std::string* chosen) {
    for (const char* n : names) {
      if (void* p = Symbol(n)) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(p);
        if (chosen) *chosen = n;
        return true;
      }
    }
    api_.missing.emplace_back(*names.begin());
    return false;
  };

  const bool required = pick(api_.init, {"nvmlInit_v2"}, nullptr) && pick(api_.shutdown, {"nvmlShutdown"}, nullptr) &&
                        pick(api_.errorString, {"nvmlErrorString"}, nullptr) &&
                        pick(api_.getCount, {"nvmlDeviceGetCount_v2"}, nullptr) &&
                        pick(api_.getHandle, {"nvmlDeviceGetHandleByIndex_v2"}, nullptr);
  if (!required) {
    error = "symbol " + api_.missing.back() + " not found in " + path + " (not an NVML library, or one older than driver 319)";
    Unload();
    return false;
  }

  pick(api_.driverVersion, {"nvmlSystemGetDriverVersion"}, nullptr);
  pick(api_.nvmlVersion, {"nvmlSystemGetNVMLVersion"}, nullptr);
  pick(api_.getName, {"nvmlDeviceGetName"}, nullptr);
  pick(api_.getUuid, {"nvmlDeviceGetUUID"}, nullptr);
  pick(api_.getPciInfo, {"nvmlDeviceGetPciInfo_v3"}, nullptr);
  // v1 stays resolved beside v2: a driver may export _v2 yet refuse its struct version at run time.
  pick(api_.memoryV2, {"nvmlDeviceGetMemoryInfo_v2"}, &api_.memorySymbol);
  pick(api_.memoryV1, {"nvmlDeviceGetMemoryInfo"}, api_.memoryV2 ? nullptr : &api_.memorySymbol);
  pick(api_.utilization, {"nvmlDeviceGetUtilizationRates"}, nullptr);
  pick(api_.clockInfo, {"nvmlDeviceGetClockInfo"}, nullptr);
  pick(api_.powerUsage, {"nvmlDeviceGetPowerUsage"}, nullptr);
  pick(api_.temperature, {"nvmlDeviceGetTemperature"}, nullptr);
  pick(api_.clocksEventReasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}, &api_.clocksEventSymbol);
  pick(api_.totalEccErrors, {"nvmlDeviceGetTotalEccErrors"}, nullptr);
  // _v3 and _v2 take the same nvmlProcessInfo_v2_t; the unversioned one the shorter v1 struct.
  if (!pick(api_.processes, {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"}, &api_.processesSymbol))
    pick(api_.processesV1, {"nvmlDeviceGetComputeRunningProcesses"}, &api_.processesSymbol);
  pick(api_.eventSetCreate, {"nvmlEventSetCreate"}, nullptr);
  pick(api_.eventSetFree, {"nvmlEventSetFree"}, nullptr);
  pick(api_.registerEvents, {"nvmlDeviceRegisterEvents"}, nullptr);
  pick(api_.eventSetWaitV2, {"nvmlEventSetWait_v2"}, &api_.eventWaitSymbol);
  if (!api_.eventSetWaitV2) pick(api_.eventSetWaitV1, {"nvmlEventSetWait"}, &api_.eventWaitSymbol);
  return true;
}

void Library::Unload() {
  if (handle_) CloseLibrary(handle_);
  handle_ = nullptr;
  path_.clear();
  api_ = Api();
}

}  // namespace nvml
