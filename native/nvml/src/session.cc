#include "session.h"

#include "errors.h"

namespace nvml {

namespace {

std::string ReadSystemString(SystemStringFn fn, unsigned size) {
  if (!fn) return "";
  std::string buf(size, '\0');
  if (fn(&buf[0], size) != SUCCESS) return "";
  buf.resize(buf.find('\0') == std::string::npos ? buf.size() : buf.find('\0'));
  return buf;
}

std::string ReadDeviceString(DeviceStringFn fn, Device h, unsigned size) {
  if (!fn || !h) return "";
  std::string buf(size, '\0');
  if (fn(h, &buf[0], size) != SUCCESS) return "";
  buf.resize(buf.find('\0') == std::string::npos ? buf.size() : buf.find('\0'));
  return buf;
}

}  // namespace

Session& TheSession() {
  static Session session;
  return session;
}

bool Session::Open(const std::string& path, std::string& reason) {
  if (refs_ > 0) {
    if (path != lib_.path()) {
      reason = "NVML is already loaded from " + lib_.path() + " in this process; close it before loading " + path;
      return false;
    }
    ++refs_;
    return true;
  }
  if (!lib_.Load(path, reason)) return false;
  const Api& a = lib_.api();
  Return r = a.init();
  if (r != SUCCESS) {
    reason = Describe(a, "nvmlInit_v2", r);
    lib_.Unload();
    return false;
  }
  driverVersion_ = ReadSystemString(a.driverVersion, SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
  nvmlVersion_ = ReadSystemString(a.nvmlVersion, SYSTEM_NVML_VERSION_BUFFER_SIZE);
  unsigned int count = 0;
  r = a.getCount(&count);
  if (r != SUCCESS) {
    reason = Describe(a, "nvmlDeviceGetCount_v2", r);
    a.shutdown();
    lib_.Unload();
    return false;
  }
  devices_.assign(count, DeviceEntry());
  EnumerateDevices();
  WatchXids();
  refs_ = 1;
  return true;
}

void Session::EnumerateDevices() {
  const Api& a = lib_.api();
  for (unsigned int i = 0; i < devices_.size(); ++i) {
    DeviceEntry& d = devices_[i];
    d.index = i;
    d.handleError = a.getHandle(i, &d.handle);
    if (d.handleError != SUCCESS) {
      d.handle = nullptr;
      continue;
    }
    d.name = ReadDeviceString(a.getName, d.handle, DEVICE_NAME_V2_BUFFER_SIZE);
    d.uuid = ReadDeviceString(a.getUuid, d.handle, DEVICE_UUID_V2_BUFFER_SIZE);
    PciInfo pci{};
    if (a.getPciInfo && a.getPciInfo(d.handle, &pci) == SUCCESS) {
      pci.busId[sizeof pci.busId - 1] = '\0';
      d.pciBusId = pci.busId;
    }
  }
}

void Session::WatchXids() {
  const Api& a = lib_.api();
  xidNote_.clear();
  if (!a.eventSetCreate || !a.registerEvents || (!a.eventSetWaitV2 && !a.eventSetWaitV1)) {
    xidNote_ = "this NVML has no event API (nvmlEventSetCreate / nvmlDeviceRegisterEvents / nvmlEventSetWait)";
    return;
  }
  Return r = a.eventSetCreate(&eventSet_);
  if (r != SUCCESS) {
    eventSet_ = nullptr;
    xidNote_ = Describe(a, "nvmlEventSetCreate", r);
    return;
  }
  std::string firstRefusal;
  bool any = false;
  for (DeviceEntry& d : devices_) {
    if (!d.handle) continue;
    r = a.registerEvents(d.handle, EVENT_TYPE_XID_CRITICAL_ERROR, eventSet_);
    d.xidRegistered = r == SUCCESS;
    any = any || d.xidRegistered;
    if (!d.xidRegistered && firstRefusal.empty()) firstRefusal = Describe(a, "nvmlDeviceRegisterEvents", r);
  }
  if (!any) xidNote_ = firstRefusal.empty() ? "no device to watch" : firstRefusal;
}

void Session::Close() {
  if (refs_ == 0) return;
  if (--refs_ == 0) Teardown();
}

void Session::Teardown() {
  const Api& a = lib_.api();
  if (eventSet_ && a.eventSetFree) a.eventSetFree(eventSet_);
  eventSet_ = nullptr;
  a.shutdown();
  devices_.clear();
  lib_.Unload();
}

}  // namespace nvml
