/*
 * A scriptable stand-in for libnvidia-ml.so.1, so the real addon, sampler and recorder are tested end
 * to end on machines without a GPU. It exports the entry points Quadscope uses, with NVML's
 * signatures, return codes and struct layouts, and reads its behaviour at nvmlInit_v2 from a script:
 * the file named by QUADSCOPE_FAKE_NVML_SCRIPT, then the lines of QUADSCOPE_FAKE_NVML (';' separates
 * lines). One command a line ('#' starts a comment):
 *
 *   devices N                     N devices with plausible defaults (must come first)
 *   driver_version S | nvml_version S
 *   init_error CODE | count_error CODE | no_events
 *   gpu I name TEXT… | uuid S | pci_bus_id S
 *   gpu I mem_total B | mem_used B | mem_reserved B | mem_climb_per_call B | mem_climb_per_sec B
 *   gpu I util_gpu P | util_mem P | sm_clock MHZ | mem_clock MHZ | power_mw MW | temp C
 *   gpu I throttle BITS [from_call K]     clocks-event reasons (0 before call K)
 *   gpu I ecc_dbe_volatile N | ecc_dbe_aggregate N
 *   gpu I process PID BYTES               a compute process (BYTES 'na' = NVML_VALUE_NOT_AVAILABLE)
 *   gpu I xid CODE at_call K              an Xid critical error pending from call K
 *   gpu I lost_from_call K                NVML_ERROR_GPU_IS_LOST for every query from call K
 *   gpu I handle_error CODE               nvmlDeviceGetHandleByIndex_v2 fails
 *   gpu I unsupported FIELD…              NVML_ERROR_NOT_SUPPORTED for memory utilization clocks power
 *                                         temperature throttle ecc processes events
 *   gpu I error FIELD CODE                that field fails with CODE
 *   gpu I memory_v2 CODE                  what nvmlDeviceGetMemoryInfo_v2 answers (e.g. 25: version mismatch)
 *
 * A device's "call" count is the number of memory queries made on it (the addon reads memory first in
 * each sample), so "from call K" means "from the K-th sample on". Built with -DFAKE_NVML_LEGACY it
 * lacks the _v2/_v3 entry points and nvmlDeviceGetCurrentClocksEventReasons, like an old driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;
typedef struct fake_event_set *nvmlEventSet_t;

enum {
  NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2, NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_INSUFFICIENT_SIZE = 7, NVML_ERROR_TIMEOUT = 10, NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25
};

typedef struct { char busIdLegacy[16]; unsigned domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]; } nvmlPciInfo_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned gpu, memory; } nvmlUtilization_t;
typedef struct { unsigned pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
typedef struct { unsigned pid; unsigned long long usedGpuMemory; unsigned gpuInstanceId, computeInstanceId; } nvmlProcessInfo_v2_t;
typedef struct { nvmlDevice_t device; unsigned long long eventType, eventData; unsigned gpuInstanceId, computeInstanceId; } nvmlEventData_t;

#define MAX_DEVICES 64
#define MAX_PROCS 128
#define MAX_XIDS 16
#define XID_EVENT 0x8ULL
#define NOT_AVAILABLE (~0ULL)

enum field { F_MEMORY, F_UTIL, F_CLOCKS, F_POWER, F_TEMP, F_THROTTLE, F_ECC, F_PROCS, F_EVENTS, F_COUNT };
static const char *FIELD_NAMES[F_COUNT] = {"memory", "utilization", "clocks", "power", "temperature", "throttle", "ecc", "processes", "events"};

struct fake_device {
  char name[96], uuid[96], pci[32];
  unsigned long long mem_total, mem_used, mem_reserved;
  long long climb_per_call, climb_per_sec;
  unsigned util_gpu, util_mem, sm_clock, mem_clock, power_mw, temp;
  unsigned long long throttle;
  long throttle_from_call;
  unsigned long long ecc_vol, ecc_agg;
  int field_error[F_COUNT];
  int memory_v2_result;
  long lost_from_call;
  int handle_error;
  unsigned nprocs;
  struct { unsigned pid; unsigned long long bytes; } procs[MAX_PROCS];
  unsigned nxids;
  struct { unsigned long long code; long at_call; int delivered; } xids[MAX_XIDS];
  long calls;
  int xid_registered;
};

struct fake_event_set { int unused; };

static struct fake_device devices[MAX_DEVICES];
static unsigned device_count;
static int init_refs, init_error, count_error, no_events;
static char driver_version[80] = "999.99.99", nvml_version[80] = "12.999.99.99";
static struct timespec t0;
static struct fake_event_set the_set;

static void default_device(unsigned i) {
  struct fake_device *d = &devices[i];
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "Fake NVIDIA GPU %u", i);
  snprintf(d->uuid, sizeof d->uuid, "GPU-fa4e0000-0000-4000-8000-%012u", i);
  snprintf(d->pci, sizeof d->pci, "00000000:%02X:00.0", 0x10 + i);
  d->mem_total = 80ULL << 30;
  d->mem_used = 1ULL << 30;
  d->util_gpu = 50;
  d->util_mem = 30;
  d->sm_clock = 1980;
  d->mem_clock = 2619;
  d->power_mw = 300000;
  d->temp = 60;
  d->throttle_from_call = 0;
  d->lost_from_call = -1;
}

static int field_index(const char *name) {
  for (int f = 0; f < F_COUNT; f++)
    if (strcmp(name, FIELD_NAMES[f]) == 0) return f;
  fprintf(stderr, "fake_nvml: unknown field '%s'\n", name);
  return -1;
}

static unsigned long long num(const char *s) { return s ? strtoull(s, NULL, 0) : 0; }

static void run_gpu_command(struct fake_device *d, char *key, char *rest) {
  char *save = NULL;
  char *a = strtok_r(rest, " \t", &save);
  if (strcmp(key, "name") == 0 || strcmp(key, "uuid") == 0 || strcmp(key, "pci_bus_id") == 0) {
    char *dst = key[0] == 'n' ? d->name : key[0] == 'u' ? d->uuid : d->pci;
    size_t cap = key[0] == 'p' ? sizeof d->pci : sizeof d->name;
    /* the value is the rest of the line, spaces included */
    if (a) {
      char *tail = strtok_r(NULL, "", &save);
      snprintf(dst, cap, tail ? "%s %s" : "%s", a, tail ? tail : "");
    }
  } else if (strcmp(key, "mem_total") == 0) d->mem_total = num(a);
  else if (strcmp(key, "mem_used") == 0) d->mem_used = num(a);
  else if (strcmp(key, "mem_reserved") == 0) d->mem_reserved = num(a);
  else if (strcmp(key, "mem_climb_per_call") == 0) d->climb_per_call = strtoll(a ? a : "0", NULL, 0);
  else if (strcmp(key, "mem_climb_per_sec") == 0) d->climb_per_sec = strtoll(a ? a : "0", NULL, 0);
  else if (strcmp(key, "util_gpu") == 0) d->util_gpu = (unsigned)num(a);
  else if (strcmp(key, "util_mem") == 0) d->util_mem = (unsigned)num(a);
  else if (strcmp(key, "sm_clock") == 0) d->sm_clock = (unsigned)num(a);
  else if (strcmp(key, "mem_clock") == 0) d->mem_clock = (unsigned)num(a);
  else if (strcmp(key, "power_mw") == 0) d->power_mw = (unsigned)num(a);
  else if (strcmp(key, "temp") == 0) d->temp = (unsigned)num(a);
  else if (strcmp(key, "throttle") == 0) {
    d->throttle = num(a);
    char *k = strtok_r(NULL, " \t", &save);
    if (k && strcmp(k, "from_call") == 0) d->throttle_from_call = (long)num(strtok_r(NULL, " \t", &save));
  } else if (strcmp(key, "ecc_dbe_volatile") == 0) d->ecc_vol = num(a);
  else if (strcmp(key, "ecc_dbe_aggregate") == 0) d->ecc_agg = num(a);
  else if (strcmp(key, "process") == 0 && d->nprocs < MAX_PROCS) {
    char *b = strtok_r(NULL, " \t", &save);
    d->procs[d->nprocs].pid = (unsigned)num(a);
    d->procs[d->nprocs].bytes = b && strcmp(b, "na") == 0 ? NOT_AVAILABLE : num(b);
    d->nprocs++;
  } else if (strcmp(key, "xid") == 0 && d->nxids < MAX_XIDS) {
    d->xids[d->nxids].code = num(a);
    char *k = strtok_r(NULL, " \t", &save);
    d->xids[d->nxids].at_call = k && strcmp(k, "at_call") == 0 ? (long)num(strtok_r(NULL, " \t", &save)) : 1;
    d->nxids++;
  } else if (strcmp(key, "lost_from_call") == 0) d->lost_from_call = (long)num(a);
  else if (strcmp(key, "handle_error") == 0) d->handle_error = (int)num(a);
  else if (strcmp(key, "memory_v2") == 0) d->memory_v2_result = (int)num(a);
  else if (strcmp(key, "unsupported") == 0) {
    for (; a; a = strtok_r(NULL, " \t", &save)) {
      int f = field_index(a);
      if (f >= 0) d->field_error[f] = NVML_ERROR_NOT_SUPPORTED;
    }
  } else if (strcmp(key, "error") == 0) {
    int f = a ? field_index(a) : -1;
    if (f >= 0) d->field_error[f] = (int)num(strtok_r(NULL, " \t", &save));
  } else fprintf(stderr, "fake_nvml: unknown gpu key '%s'\n", key);
}

static void run_line(char *line) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  char *save = NULL;
  char *cmd = strtok_r(line, " \t\r\n", &save);
  if (!cmd) return;
  char *rest = strtok_r(NULL, "\r\n", &save);
  if (strcmp(cmd, "devices") == 0) {
    device_count = (unsigned)num(rest);
    if (device_count > MAX_DEVICES) device_count = MAX_DEVICES;
    for (unsigned i = 0; i < device_count; i++) default_device(i);
  } else if (strcmp(cmd, "driver_version") == 0 && rest) snprintf(driver_version, sizeof driver_version, "%s", rest);
  else if (strcmp(cmd, "nvml_version") == 0 && rest) snprintf(nvml_version, sizeof nvml_version, "%s", rest);
  else if (strcmp(cmd, "init_error") == 0) init_error = (int)num(rest);
  else if (strcmp(cmd, "count_error") == 0) count_error = (int)num(rest);
  else if (strcmp(cmd, "no_events") == 0) no_events = 1;
  else if (strcmp(cmd, "gpu") == 0 && rest) {
    char *s2 = NULL;
    char *idx = strtok_r(rest, " \t", &s2);
    char *key = strtok_r(NULL, " \t", &s2);
    char *tail = strtok_r(NULL, "", &s2);
    unsigned i = (unsigned)num(idx);
    if (key && i < device_count) run_gpu_command(&devices[i], key, tail ? tail : (char[]){""});
    else fprintf(stderr, "fake_nvml: bad gpu line (device %u of %u)\n", i, device_count);
  } else fprintf(stderr, "fake_nvml: unknown command '%s'\n", cmd);
}

static void run_text(char *text, const char *separators) {
  char *save = NULL;
  for (char *line = strtok_r(text, separators, &save); line; line = strtok_r(NULL, separators, &save)) run_line(line);
}

static void load_script(void) {
  device_count = 1;
  default_device(0);
  init_error = count_error = no_events = 0;
  snprintf(driver_version, sizeof driver_version, "999.99.99");
  snprintf(nvml_version, sizeof nvml_version, "12.999.99.99");
  const char *file = getenv("QUADSCOPE_FAKE_NVML_SCRIPT");
  if (file && *file) {
    FILE *f = fopen(file, "rb");
    if (f) {
      static char buf[1 << 16];
      size_t n = fread(buf, 1, sizeof buf - 1, f);
      buf[n] = '\0';
      fclose(f);
      run_text(buf, "\n");
    } else fprintf(stderr, "fake_nvml: cannot read script %s\n", file);
  }
  const char *inline_script = getenv("QUADSCOPE_FAKE_NVML");
  if (inline_script && *inline_script) {
    char *copy = strdup(inline_script);
    run_text(copy, ";\n");
    free(copy);
  }
}

static struct fake_device *dev(nvmlDevice_t h) {
  if (!h || h < devices || h >= devices + device_count) return NULL;
  return h;
}

/* Checks init, the handle, lost and a scripted per-field failure; answers NVML_SUCCESS to go on. */
static nvmlReturn_t check(nvmlDevice_t h, int field) {
  if (!init_refs) return NVML_ERROR_UNINITIALIZED;
  struct fake_device *d = dev(h);
  if (!d) return NVML_ERROR_INVALID_ARGUMENT;
  if (d->lost_from_call >= 0 && d->calls >= d->lost_from_call) return NVML_ERROR_GPU_IS_LOST;
  return field >= 0 ? d->field_error[field] : NVML_SUCCESS;
}

static double seconds_since_init(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
}

static unsigned long long used_now(const struct fake_device *d) {
  long double used = (long double)d->mem_used + (long double)d->climb_per_call * d->calls + (long double)d->climb_per_sec * seconds_since_init();
  if (used < 0) used = 0;
  if (used > d->mem_total) used = d->mem_total;
  return (unsigned long long)used;
}

nvmlReturn_t nvmlInit_v2(void) {
  if (init_refs == 0) {
    load_script();
    if (init_error) return init_error;
    clock_gettime(CLOCK_MONOTONIC, &t0);
  }
  init_refs++;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (!init_refs) return NVML_ERROR_UNINITIALIZED;
  init_refs--;
  return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 10: return "Timeout";
    case 13: return "Function Not Found";
    case 14: return "Corrupted infoROM";
    case 15: return "GPU is lost";
    case 18: return "RM has detected an NVML/RM version mismatch.";
    case 25: return "Argument version mismatch";
    default: return "Unknown Error";
  }
}

static nvmlReturn_t copy_string(const char *src, char *dst, unsigned len) {
  if (!dst) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(src) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(dst, src, strlen(src) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned len) { return init_refs ? copy_string(driver_version, v, len) : NVML_ERROR_UNINITIALIZED; }
nvmlReturn_t nvmlSystemGetNVMLVersion(char *v, unsigned len) { return init_refs ? copy_string(nvml_version, v, len) : NVML_ERROR_UNINITIALIZED; }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) {
  if (!init_refs) return NVML_ERROR_UNINITIALIZED;
  if (count_error) return count_error;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = device_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *h) {
  if (!init_refs) return NVML_ERROR_UNINITIALIZED;
  if (i >= device_count || !h) return NVML_ERROR_INVALID_ARGUMENT;
  if (devices[i].handle_error) return devices[i].handle_error;
  *h = &devices[i];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned len) {
  nvmlReturn_t r = check(h, -1);
  return r ? r : copy_string(h->name, name, len);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *uuid, unsigned len) {
  nvmlReturn_t r = check(h, -1);
  return r ? r : copy_string(h->uuid, uuid, len);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *pci) {
  nvmlReturn_t r = check(h, -1);
  if (r) return r;
  memset(pci, 0, sizeof *pci);
  snprintf(pci->busId, sizeof pci->busId, "%s", h->pci);
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s", h->pci + (strlen(h->pci) > 12 ? 4 : 0));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m) {
  if (dev(h)) h->calls++;
  nvmlReturn_t r = check(h, F_MEMORY);
  if (r) return r;
  m->total = h->mem_total;
  m->used = used_now(h);
  m->free = m->total - m->used;
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_LEGACY
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m) {
  if (dev(h)) h->calls++;
  nvmlReturn_t r = check(h, F_MEMORY);
  if (r) return r;
  if (h->memory_v2_result) {
    h->calls--; /* the caller falls back to v1, which counts this call */
    return h->memory_v2_result;
  }
  if (m->version != ((unsigned)sizeof(nvmlMemory_v2_t) | (2u << 24))) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  m->total = h->mem_total;
  m->reserved = h->mem_reserved;
  m->used = used_now(h);
  m->free = m->total - m->used;
  return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u) {
  nvmlReturn_t r = check(h, F_UTIL);
  if (r) return r;
  u->gpu = h->util_gpu;
  u->memory = h->util_mem;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int type, unsigned *clock) {
  nvmlReturn_t r = check(h, F_CLOCKS);
  if (r) return r;
  if (type == 1) *clock = h->sm_clock;
  else if (type == 2) *clock = h->mem_clock;
  else return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned *mw) {
  nvmlReturn_t r = check(h, F_POWER);
  if (r) return r;
  *mw = h->power_mw;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned *c) {
  nvmlReturn_t r = check(h, F_TEMP);
  if (r) return r;
  if (sensor != 0) return NVML_ERROR_INVALID_ARGUMENT;
  *c = h->temp;
  return NVML_SUCCESS;
}

static nvmlReturn_t clocks_reasons(nvmlDevice_t h, unsigned long long *bits) {
  nvmlReturn_t r = check(h, F_THROTTLE);
  if (r) return r;
  *bits = h->calls >= h->throttle_from_call ? h->throttle : 0;
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_LEGACY
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long *bits) { return clocks_reasons(h, bits); }
#endif
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h, unsigned long long *bits) { return clocks_reasons(h, bits); }

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t h, int error_type, int counter_type, unsigned long long *count) {
  nvmlReturn_t r = check(h, F_ECC);
  if (r) return r;
  if (error_type != 1 && error_type != 0) return NVML_ERROR_INVALID_ARGUMENT;
  *count = error_type == 0 ? 0 : counter_type == 0 ? h->ecc_vol : h->ecc_agg;
  return NVML_SUCCESS;
}

static nvmlReturn_t processes(nvmlDevice_t h, unsigned *count, void *infos, int v1) {
  nvmlReturn_t r = check(h, F_PROCS);
  if (r) return r;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  if (*count < h->nprocs || (!infos && h->nprocs)) {
    *count = h->nprocs;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned i = 0; i < h->nprocs; i++) {
    if (v1) {
      nvmlProcessInfo_v1_t *p = (nvmlProcessInfo_v1_t *)infos + i;
      p->pid = h->procs[i].pid;
      p->usedGpuMemory = h->procs[i].bytes;
    } else {
      nvmlProcessInfo_v2_t *p = (nvmlProcessInfo_v2_t *)infos + i;
      p->pid = h->procs[i].pid;
      p->usedGpuMemory = h->procs[i].bytes;
      p->gpuInstanceId = p->computeInstanceId = 0xFFFFFFFFu;
    }
  }
  *count = h->nprocs;
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_LEGACY
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned *count, nvmlProcessInfo_v2_t *infos) { return processes(h, count, infos, 0); }
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t h, unsigned *count, nvmlProcessInfo_v2_t *infos) { return processes(h, count, infos, 0); }
#endif
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t h, unsigned *count, nvmlProcessInfo_v1_t *infos) { return processes(h, count, infos, 1); }

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
  if (!init_refs) return NVML_ERROR_UNINITIALIZED;
  if (no_events) return NVML_ERROR_NOT_SUPPORTED;
  for (unsigned i = 0; i < device_count; i++) devices[i].xid_registered = 0;
  *set = &the_set;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  (void)set;
  return init_refs ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t h, unsigned long long types, nvmlEventSet_t set) {
  nvmlReturn_t r = check(h, F_EVENTS);
  if (r) return r;
  if (set != &the_set) return NVML_ERROR_INVALID_ARGUMENT;
  if (types & XID_EVENT) h->xid_registered = 1;
  return NVML_SUCCESS;
}

static nvmlReturn_t wait_event(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms, int v2) {
  (void)timeout_ms; /* the stub never blocks: pending events are known at once */
  if (!init_refs) return NVML_ERROR_UNINITIALIZED;
  if (set != &the_set || !data) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned i = 0; i < device_count; i++) {
    struct fake_device *d = &devices[i];
    if (!d->xid_registered) continue;
    for (unsigned k = 0; k < d->nxids; k++) {
      if (d->xids[k].delivered || d->calls < d->xids[k].at_call) continue;
      d->xids[k].delivered = 1;
      data->device = d;
      data->eventType = XID_EVENT;
      data->eventData = d->xids[k].code;
      if (v2) data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_TIMEOUT;
}

#ifndef FAKE_NVML_LEGACY
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms) { return wait_event(set, data, timeout_ms, 1); }
#endif
nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms) { return wait_event(set, data, timeout_ms, 0); }
