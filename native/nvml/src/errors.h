// NVML return codes as text a user can act on: "nvmlDeviceGetPowerUsage: Insufficient Permissions
// (NVML_ERROR_NO_PERMISSION)". nvmlErrorString gives the driver's wording; the constant name makes it
// searchable.
#pragma once

#include <string>

#include "library.h"

namespace nvml {

// The constant's name, or nullptr for a code this build does not know.
const char* ReturnName(Return r);
std::string Describe(const Api& api, const char* function, Return r);

}  // namespace nvml
