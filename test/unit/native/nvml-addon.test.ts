// The real addon against the stub libnvidia-ml (native/nvml/stub/fake_nvml.c), scripted per test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEGACY_STUB_LIBRARY, STUB_LIBRARY, openNvml, type NvmlSession } from '../../../native/nvml/index';

const ADDON = new URL('../../../native/nvml/build/Release/quadscope_nvml.node', import.meta.url);
const skip = existsSync(ADDON) && existsSync(STUB_LIBRARY) && existsSync(LEGACY_STUB_LIBRARY) ? false : 'the NVML addon or its stub is not built (node scripts/build-native.mjs)';

/** Opens the stub with `script` (lines joined by ';'); the caller closes. */
function openStub(script: string[], libraryPath = STUB_LIBRARY): NvmlSession {
  delete process.env.QUADSCOPE_FAKE_NVML_SCRIPT;
  process.env.QUADSCOPE_FAKE_NVML = script.join(';');
  const n = openNvml({ libraryPath });
  if (!n.available) throw new Error(`stub did not open: ${n.reason}`);
  return n;
}

test('reads every field of every device, with NVML units turned into ours', { skip }, () => {
  const n = openStub([
    'devices 2',
    'driver_version 550.54.15',
    'nvml_version 12.550.54.15',
    'gpu 0 name NVIDIA H100 80GB HBM3',
    'gpu 0 uuid GPU-5a1b2c3d-0000-1111-2222-333344445555',
    'gpu 0 pci_bus_id 00000000:3B:00.0',
    'gpu 0 mem_total 85520809984',
    'gpu 0 mem_used 61203283968',
    'gpu 0 mem_reserved 566231040',
    'gpu 0 util_gpu 97',
    'gpu 0 util_mem 41',
    'gpu 0 sm_clock 1755',
    'gpu 0 mem_clock 2619',
    'gpu 0 power_mw 612345',
    'gpu 0 temp 71',
    'gpu 0 throttle 0x24',
    'gpu 0 ecc_dbe_volatile 2',
    'gpu 0 ecc_dbe_aggregate 7',
    'gpu 0 process 4242 59055800320',
    'gpu 0 process 4243 na',
    'gpu 1 name NVIDIA A100-SXM4-40GB',
  ]);
  try {
    assert.equal(n.driver_version, '550.54.15');
    assert.equal(n.nvml_version, '12.550.54.15');
    assert.equal(n.library, STUB_LIBRARY);
    assert.deepEqual(n.devices.map((d) => d.name), ['NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-40GB']);
    assert.deepEqual(n.symbols, {
      memory: 'nvmlDeviceGetMemoryInfo_v2',
      processes: 'nvmlDeviceGetComputeRunningProcesses_v3',
      clocks_event_reasons: 'nvmlDeviceGetCurrentClocksEventReasons',
      event_wait: 'nvmlEventSetWait_v2',
    });
    assert.deepEqual(n.missing_symbols, []);
    assert.equal(n.xid_note, null);
    const s = n.sample();
    assert.equal(s.devices.length, 2);
    const d = s.devices[0];
    assert.deepEqual(
      { ...d, processes: undefined },
      {
        index: 0,
        name: 'NVIDIA H100 80GB HBM3',
        uuid: 'GPU-5a1b2c3d-0000-1111-2222-333344445555',
        pci_bus_id: '00000000:3B:00.0',
        lost: false,
        mem_used: 61203283968,
        mem_total: 85520809984,
        mem_free: 85520809984 - 61203283968,
        mem_reserved: 566231040,
        util_gpu: 97,
        util_mem: 41,
        sm_clock_mhz: 1755,
        mem_clock_mhz: 2619,
        power_w: 612.345,
        temp_c: 71,
        clocks_event_reasons: 0x24,
        ecc_dbe_volatile: 2,
        ecc_dbe_aggregate: 7,
        processes: undefined,
        errors: {},
      },
    );
    assert.deepEqual(d.processes, [
      { pid: 4242, used_bytes: 59055800320 },
      { pid: 4243, used_bytes: null },
    ]);
    assert.equal(s.devices[1].name, 'NVIDIA A100-SXM4-40GB');
    assert.deepEqual(s.devices[1].processes, []);
    assert.deepEqual(s.xids, []);
    assert.ok(s.cost_us > 0);
  } finally {
    n.close();
  }
});

test('a missing library is available:false with the loader error, never a crash', { skip }, () => {
  const n = openNvml({ libraryPath: '/nonexistent/libnvidia-ml.so.1' });
  assert.equal(n.available, false);
  assert.match((n as { reason: string }).reason, /^\/nonexistent\/libnvidia-ml\.so\.1 not found: .*No such file or directory/);
});

test('QUADSCOPE_NVML_LIB names the library by default', { skip }, () => {
  const before = process.env.QUADSCOPE_NVML_LIB;
  process.env.QUADSCOPE_NVML_LIB = '/nonexistent/by-env/libnvidia-ml.so.1';
  try {
    const n = openNvml();
    assert.equal(n.available, false);
    assert.match((n as { reason: string }).reason, /^\/nonexistent\/by-env\/libnvidia-ml\.so\.1 not found/);
  } finally {
    if (before === undefined) delete process.env.QUADSCOPE_NVML_LIB;
    else process.env.QUADSCOPE_NVML_LIB = before;
  }
});

test('a library that is not NVML names the missing entry point', { skip }, () => {
  const other = ['/lib/x86_64-linux-gnu/libm.so.6', '/usr/lib/x86_64-linux-gnu/libm.so.6', '/lib64/libm.so.6', '/lib/aarch64-linux-gnu/libm.so.6'].find(existsSync);
  if (!other) return;
  const n = openNvml({ libraryPath: other });
  assert.equal(n.available, false);
  assert.equal((n as { reason: string }).reason.startsWith(`symbol nvmlInit_v2 not found in ${other}`), true);
});

test('nvmlInit_v2 and nvmlDeviceGetCount_v2 failures come back as NVML error text', { skip }, () => {
  process.env.QUADSCOPE_FAKE_NVML = 'devices 1;init_error 9';
  const a = openNvml({ libraryPath: STUB_LIBRARY });
  assert.deepEqual(a, { available: false, reason: 'nvmlInit_v2: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED)' });
  process.env.QUADSCOPE_FAKE_NVML = 'devices 1;count_error 18';
  const b = openNvml({ libraryPath: STUB_LIBRARY });
  assert.deepEqual(b, { available: false, reason: 'nvmlDeviceGetCount_v2: RM has detected an NVML/RM version mismatch. (NVML_ERROR_LIB_RM_VERSION_MISMATCH)' });
  // A failed open leaves nothing loaded: a good script opens next.
  openStub(['devices 1']).close();
});

test('NOT_SUPPORTED is null without an error; other field failures are null with the NVML text', { skip }, () => {
  const n = openStub(['devices 2', 'gpu 0 unsupported ecc power processes clocks', 'gpu 1 error temperature 4', 'gpu 1 error throttle 999']);
  try {
    const [a, b] = n.sample().devices;
    assert.equal(a.ecc_dbe_volatile, null);
    assert.equal(a.ecc_dbe_aggregate, null);
    assert.equal(a.power_w, null);
    assert.equal(a.processes, null);
    assert.equal(a.sm_clock_mhz, null);
    assert.equal(a.mem_clock_mhz, null);
    assert.equal(a.temp_c, 60);
    assert.deepEqual(a.errors, {});
    assert.equal(b.temp_c, null);
    assert.equal(b.clocks_event_reasons, null);
    assert.equal(b.power_w, 300);
    assert.deepEqual(b.errors, {
      temperature: 'nvmlDeviceGetTemperature: Insufficient Permissions (NVML_ERROR_NO_PERMISSION)',
      clocks_event_reasons: 'nvmlDeviceGetCurrentClocksEventReasons: Unknown Error (NVML_ERROR_UNKNOWN)',
    });
  } finally {
    n.close();
  }
});

test('GPU_IS_LOST on one device marks it lost from that sample on; the others keep sampling', { skip }, () => {
  const n = openStub(['devices 3', 'gpu 1 lost_from_call 3', 'gpu 2 handle_error 15']);
  try {
    const lost = [1, 2, 3, 4].map(() => n.sample().devices.map((d) => d.lost));
    assert.deepEqual(lost, [
      [false, false, true],
      [false, false, true],
      [false, true, true],
      [false, true, true],
    ]);
    const last = n.sample().devices;
    assert.equal(last[0].mem_used, 2 ** 30);
    assert.equal(last[1].mem_used, null);
    assert.equal(last[1].util_gpu, null);
    assert.equal(last[1].uuid, 'GPU-fa4e0000-0000-4000-8000-000000000001', 'identity read at open stays');
    assert.deepEqual(last[1].errors, {});
  } finally {
    n.close();
  }
});

test('a handle that cannot be had for another reason is reported per device', { skip }, () => {
  const n = openStub(['devices 2', 'gpu 0 handle_error 4']);
  try {
    const [a, b] = n.sample().devices;
    assert.equal(a.lost, false);
    assert.equal(a.mem_used, null);
    assert.deepEqual(a.errors, { handle: 'nvmlDeviceGetHandleByIndex_v2: Insufficient Permissions (NVML_ERROR_NO_PERMISSION)' });
    assert.equal(b.mem_used, 2 ** 30);
  } finally {
    n.close();
  }
});

test('an old driver without _v2/_v3 entry points falls back to v1 calls', { skip }, () => {
  const n = openStub(['devices 1', 'gpu 0 mem_used 5000000000', 'gpu 0 mem_reserved 123', 'gpu 0 throttle 0x8', 'gpu 0 process 77 1234567', 'gpu 0 xid 48 at_call 1'], LEGACY_STUB_LIBRARY);
  try {
    assert.deepEqual(n.symbols, {
      memory: 'nvmlDeviceGetMemoryInfo',
      processes: 'nvmlDeviceGetComputeRunningProcesses',
      clocks_event_reasons: 'nvmlDeviceGetCurrentClocksThrottleReasons',
      event_wait: 'nvmlEventSetWait',
    });
    assert.deepEqual(n.missing_symbols, ['nvmlDeviceGetMemoryInfo_v2', 'nvmlDeviceGetComputeRunningProcesses_v3', 'nvmlEventSetWait_v2']);
    const s = n.sample();
    const d = s.devices[0];
    assert.equal(d.mem_used, 5000000000);
    assert.equal(d.mem_reserved, null, 'v1 has no reserved field');
    assert.equal(d.clocks_event_reasons, 0x8);
    assert.deepEqual(d.processes, [{ pid: 77, used_bytes: 1234567 }]);
    assert.deepEqual(s.xids, [{ gpu: 0, xid: 48 }]);
  } finally {
    n.close();
  }
});

test('a driver that refuses the nvmlMemory_v2 struct version is read with v1', { skip }, () => {
  const n = openStub(['devices 1', 'gpu 0 memory_v2 25', 'gpu 0 mem_used 7000000000', 'gpu 0 mem_climb_per_call 10']);
  try {
    const a = n.sample().devices[0];
    const b = n.sample().devices[0];
    assert.equal(a.mem_used, 7000000010);
    assert.equal(a.mem_reserved, null);
    assert.deepEqual(a.errors, {});
    assert.equal(b.mem_used, 7000000020);
  } finally {
    n.close();
  }
});

test('memory climbs as scripted, a throttle bit appears from call K, an Xid arrives once', { skip }, () => {
  const n = openStub(['devices 2', 'gpu 1 mem_climb_per_call 1048576', 'gpu 1 throttle 0x4 from_call 3', 'gpu 1 xid 79 at_call 2']);
  try {
    const rounds = [1, 2, 3, 4].map(() => n.sample());
    assert.deepEqual(rounds.map((r) => r.devices[1].mem_used), [1, 2, 3, 4].map((k) => 2 ** 30 + k * 1048576));
    assert.deepEqual(rounds.map((r) => r.devices[0].mem_used), [2 ** 30, 2 ** 30, 2 ** 30, 2 ** 30]);
    assert.deepEqual(rounds.map((r) => r.devices[1].clocks_event_reasons), [0, 0, 0x4, 0x4]);
    assert.deepEqual(rounds.map((r) => r.xids), [[], [{ gpu: 1, xid: 79 }], [], []]);
  } finally {
    n.close();
  }
});

test('long process lists are read whole (the buffer grows on INSUFFICIENT_SIZE)', { skip }, () => {
  const lines = ['devices 1', ...Array.from({ length: 100 }, (_, i) => `gpu 0 process ${1000 + i} ${(i + 1) * 4096}`)];
  const n = openStub(lines);
  try {
    const p = n.sample().devices[0].processes!;
    assert.equal(p.length, 100);
    assert.deepEqual(p[99], { pid: 1099, used_bytes: 100 * 4096 });
  } finally {
    n.close();
  }
});

test('without an event API Xids are not watched, and the reason says why', { skip }, () => {
  const n = openStub(['devices 1', 'no_events']);
  try {
    assert.equal(n.xid_note, 'nvmlEventSetCreate: Not Supported (NVML_ERROR_NOT_SUPPORTED)');
    assert.deepEqual(n.sample().xids, []);
  } finally {
    n.close();
  }
});

test('the script can come from a file (QUADSCOPE_FAKE_NVML_SCRIPT)', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-nvml-'));
  try {
    const file = join(dir, 'script.txt');
    writeFileSync(file, '# eight GPUs\ndevices 8\ngpu 7 name NVIDIA H200\n');
    delete process.env.QUADSCOPE_FAKE_NVML;
    process.env.QUADSCOPE_FAKE_NVML_SCRIPT = file;
    const n = openNvml({ libraryPath: STUB_LIBRARY });
    assert.equal(n.available, true);
    if (!n.available) return;
    assert.equal(n.devices.length, 8);
    assert.equal(n.sample().devices[7].name, 'NVIDIA H200');
    n.close();
  } finally {
    delete process.env.QUADSCOPE_FAKE_NVML_SCRIPT;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sessions are reference counted; a second library while one is loaded is refused', { skip }, () => {
  const a = openStub(['devices 1']);
  const b = openNvml({ libraryPath: STUB_LIBRARY });
  assert.equal(b.available, true);
  const other = openNvml({ libraryPath: LEGACY_STUB_LIBRARY });
  assert.deepEqual(other, { available: false, reason: `NVML is already loaded from ${STUB_LIBRARY} in this process; close it before loading ${LEGACY_STUB_LIBRARY}` });
  a.close();
  a.close(); // closing twice releases one reference only
  assert.throws(() => a.sample(), /this NVML session was closed/);
  if (b.available) {
    assert.equal(b.sample().devices.length, 1, 'the other reference keeps NVML open');
    b.close();
  }
  // All references released: the library is unloaded, so the legacy one can load now.
  const c = openStub(['devices 1'], LEGACY_STUB_LIBRARY);
  assert.equal(c.symbols.memory, 'nvmlDeviceGetMemoryInfo');
  c.close();
});
