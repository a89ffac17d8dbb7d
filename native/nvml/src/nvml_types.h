// Our own declarations of the few NVML types, constants and entry points Quadscope uses, so the addon
// builds without CUDA or NVML headers. Values and layouts follow NVIDIA's nvml.h (NVML API 12); the
// library is loaded at run time, so nothing here links against it.
#pragma once

#include <cstdint>

namespace nvml {

using Return = int;

constexpr Return SUCCESS = 0;
constexpr Return ERROR_NOT_SUPPORTED = 3;
constexpr Return ERROR_INSUFFICIENT_SIZE = 7;
constexpr Return ERROR_TIMEOUT = 10;
constexpr Return ERROR_FUNCTION_NOT_FOUND = 13;
constexpr Return ERROR_GPU_IS_LOST = 15;
constexpr Return ERROR_ARGUMENT_VERSION_MISMATCH = 25;

struct DeviceSt;
using Device = DeviceSt*;
struct EventSetSt;
using EventSet = EventSetSt*;

constexpr unsigned SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
constexpr unsigned SYSTEM_NVML_VERSION_BUFFER_SIZE = 80;
constexpr unsigned DEVICE_NAME_V2_BUFFER_SIZE = 96;
constexpr unsigned DEVICE_UUID_V2_BUFFER_SIZE = 96;

// nvmlClockType_t
constexpr int CLOCK_SM = 1;
constexpr int CLOCK_MEM = 2;
// nvmlTemperatureSensors_t
constexpr int TEMPERATURE_GPU = 0;
// nvmlMemoryErrorType_t / nvmlEccCounterType_t
constexpr int MEMORY_ERROR_TYPE_UNCORRECTED = 1;
constexpr int VOLATILE_ECC = 0;
constexpr int AGGREGATE_ECC = 1;

constexpr unsigned long long EVENT_TYPE_XID_CRITICAL_ERROR = 0x0000000000000008ULL;
// usedGpuMemory under WDDM, and any other field NVML cannot fill.
constexpr unsigned long long VALUE_NOT_AVAILABLE = ~0ULL;

struct PciInfo {  // nvmlPciInfo_t (read by nvmlDeviceGetPciInfo_v3)
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

struct Memory {  // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct MemoryV2 {  // nvmlMemory_v2_t: used includes reserved
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
// NVML_STRUCT_VERSION(Memory, 2)
constexpr unsigned int MEMORY_V2_VERSION = static_cast<unsigned int>(sizeof(MemoryV2)) | (2U << 24);

struct Utilization {  // nvmlUtilization_t, percent
  unsigned int gpu;
  unsigned int memory;
};

struct ProcessInfoV1 {  // nvmlProcessInfo_v1_t (nvmlDeviceGetComputeRunningProcesses)
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

struct ProcessInfoV2 {  // nvmlProcessInfo_v2_t == nvmlProcessInfo_t (the _v2 and _v3 entry points)
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

struct EventData {  // nvmlEventData_t; nvmlEventSetWait (v1) fills only the first three fields
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

static_assert(sizeof(PciInfo) == 68, "nvmlPciInfo_t layout");
static_assert(sizeof(Memory) == 24, "nvmlMemory_t layout");
static_assert(sizeof(MemoryV2) == 40, "nvmlMemory_v2_t layout");
static_assert(sizeof(ProcessInfoV1) == 16, "nvmlProcessInfo_v1_t layout");
static_assert(sizeof(ProcessInfoV2) == 24, "nvmlProcessInfo_v2_t layout");
static_assert(sizeof(EventData) == 32, "nvmlEventData_t layout");

// Entry points, by the signatures of nvml.h.
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemStringFn = Return (*)(char*, unsigned int);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceStringFn = Return (*)(Device, char*, unsigned int);
using DeviceGetPciInfoFn = Return (*)(Device, PciInfo*);
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);
using DeviceGetMemoryInfoV2Fn = Return (*)(Device, MemoryV2*);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);
using DeviceGetClockInfoFn = Return (*)(Device, int, unsigned int*);
using DeviceGetUintFn = Return (*)(Device, unsigned int*);
using DeviceGetTemperatureFn = Return (*)(Device, int, unsigned int*);
using DeviceGetUllFn = Return (*)(Device, unsigned long long*);
using DeviceGetTotalEccErrorsFn = Return (*)(Device, int, int, unsigned long long*);
using DeviceGetProcessesV1Fn = Return (*)(Device, unsigned int*, ProcessInfoV1*);
using DeviceGetProcessesV2Fn = Return (*)(Device, unsigned int*, ProcessInfoV2*);
using EventSetCreateFn = Return (*)(EventSet*);
using EventSetFreeFn = Return (*)(EventSet);
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);

}  // namespace nvml
