// The process-wide NVML session: the loaded library, nvmlInit_v2, the device handles and the Xid event
// set. Opened with reference counting: every Open() is matched by a Close(), and the last Close() frees
// the event set, calls nvmlShutdown and unloads the library.
#pragma once

#include <string>
#include <vector>

#include "library.h"

namespace nvml {

struct DeviceEntry {
  unsigned int index = 0;
  Device handle = nullptr;
  std::string name, uuid, pciBusId;
  // Set when the handle could not be had at open (the device then samples as lost or failed).
  Return handleError = SUCCESS;
  bool xidRegistered = false;
  // A driver that refuses nvmlMemory_v2_t: later samples go straight to v1.
  bool memoryV2Refused = false;
};

class Session {
 public:
  // Opens (or re-uses) the session; answers false with `reason` set when NVML is unavailable.
  bool Open(const std::string& path, std::string& reason);
  void Close();
  bool open() const { return refs_ > 0; }

  const Api& api() const { return lib_.api(); }
  const std::string& path() const { return lib_.path(); }
  std::vector<DeviceEntry>& devices() { return devices_; }
  EventSet eventSet() const { return eventSet_; }
  const std::string& driverVersion() const { return driverVersion_; }
  const std::string& nvmlVersion() const { return nvmlVersion_; }
  // Why Xid events are not watched ("" when they are, on at least one device).
  const std::string& xidNote() const { return xidNote_; }

 private:
  void EnumerateDevices();
  void WatchXids();
  void Teardown();

  Library lib_;
  int refs_ = 0;
  std::vector<DeviceEntry> devices_;
  EventSet eventSet_ = nullptr;
  std::string driverVersion_, nvmlVersion_, xidNote_;
};

Session& TheSession();

}  // namespace nvml
