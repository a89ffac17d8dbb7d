#include "xid_events.h"

#include "errors.h"

namespace nvml {

namespace {
// Bounds one poll: a flood of events must not stall a sample.
constexpr int kMaxEventsPerPoll = 256;
}

std::string PollXids(Session& session, std::vector<XidEvent>& out) {
  const Api& a = session.api();
  EventSet set = session.eventSet();
  if (!set) return "";
  EventSetWaitFn wait = a.eventSetWaitV2 ? a.eventSetWaitV2 : a.eventSetWaitV1;
  for (int i = 0; i < kMaxEventsPerPoll; ++i) {
    EventData data{};
    Return r = wait(set, &data, 0);
    if (r == ERROR_TIMEOUT) return "";
    if (r != SUCCESS) return Describe(a, a.eventSetWaitV2 ? "nvmlEventSetWait_v2" : "nvmlEventSetWait", r);
    if (!(data.eventType & EVENT_TYPE_XID_CRITICAL_ERROR)) continue;
    int index = -1;
    for (const DeviceEntry& d : session.devices()) {
      if (d.handle == data.device) index = static_cast<int>(d.index);
    }
    out.push_back({index, data.eventData});
  }
  return "";
}

}  // namespace nvml
