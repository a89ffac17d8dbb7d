// Xid critical errors that arrived since the last poll. nvmlEventSetWait with a 0 ms timeout answers
// at once (NVML_ERROR_TIMEOUT when nothing is pending), so polling never blocks the sampler.
#pragma once

#include <string>
#include <vector>

#include "session.h"

namespace nvml {

struct XidEvent {
  // Index of the device, or -1 when the handle matches none of ours.
  int device;
  unsigned long long xid;
};

// Drains pending events into `out`; answers "" or the text of a failure other than "none pending".
std::string PollXids(Session& session, std::vector<XidEvent>& out);

}  // namespace nvml
