#!/usr/bin/env bash
# NVML smoke test for a machine with an NVIDIA GPU: builds the addon, samples the real driver for 10 s
# at 1 Hz and prints what each device reported. Where there is no driver it prints
# "NVML not available: …" and exits 0. Run by hand: bash test/gpu/nvml-smoke.sh [seconds]
set -euo pipefail

cd "$(dirname "$0")/../.."
seconds="${1:-10}"

node scripts/build-native.mjs

script="$(mktemp --suffix=.mts "${TMPDIR:-/tmp}/nvml-smoke-XXXXXX")"
trap 'rm -f "$script"' EXIT
cat >"$script" <<TS
import { openNvml } from '$(pwd)/native/nvml/index';

const seconds = Number(process.argv[2] ?? 10);
const nvml = openNvml();
if (!nvml.available) {
  console.log(\`NVML not available: \${nvml.reason}\`);
  process.exit(0);
}
console.log(\`library \${nvml.library}; driver \${nvml.driver_version}; NVML \${nvml.nvml_version}; \${nvml.devices.length} device(s)\`);
console.log(\`entry points: \${JSON.stringify(nvml.symbols)}\${nvml.missing_symbols.length ? \`; missing: \${nvml.missing_symbols.join(', ')}\` : ''}\`);
if (nvml.xid_note) console.log(\`Xid events not watched: \${nvml.xid_note}\`);
const gib = (b: number | null) => (b === null ? 'n/a' : \`\${(b / 2 ** 30).toFixed(2)} GiB\`);
const val = (v: number | null, unit: string) => (v === null ? 'n/a' : \`\${v}\${unit}\`);
let worstUs = 0;
for (let i = 0; i < seconds; i++) {
  const s = nvml.sample();
  worstUs = Math.max(worstUs, s.cost_us);
  console.log(\`-- sample \${i + 1}/\${seconds} (\${s.cost_us.toFixed(0)} µs)\`);
  for (const d of s.devices) {
    if (d.lost) {
      console.log(\`  GPU \${d.index} \${d.name} \${d.uuid}: LOST (NVML_ERROR_GPU_IS_LOST)\`);
      continue;
    }
    console.log(
      \`  GPU \${d.index} \${d.name} \${d.uuid} \${d.pci_bus_id}: mem \${gib(d.mem_used)} / \${gib(d.mem_total)}\` +
        \`, util \${val(d.util_gpu, '%')} (mem \${val(d.util_mem, '%')}), clocks SM \${val(d.sm_clock_mhz, ' MHz')} / mem \${val(d.mem_clock_mhz, ' MHz')}\` +
        \`, power \${d.power_w === null ? 'n/a' : d.power_w.toFixed(1) + ' W'}, temp \${val(d.temp_c, ' C')}\` +
        \`, throttle \${d.clocks_event_reasons === null ? 'n/a' : '0x' + d.clocks_event_reasons.toString(16)}\` +
        \`, ECC DBE \${val(d.ecc_dbe_volatile, '')}/\${val(d.ecc_dbe_aggregate, '')}, processes \${d.processes === null ? 'n/a' : d.processes.length}\`,
    );
    for (const [field, msg] of Object.entries(d.errors)) console.log(\`    \${field}: \${msg}\`);
  }
  for (const x of s.xids) console.log(\`  Xid \${x.xid} on GPU \${x.gpu}\`);
  if (s.xid_error) console.log(\`  event poll: \${s.xid_error}\`);
  if (i + 1 < seconds) await new Promise((r) => setTimeout(r, 1000));
}
console.log(\`done: slowest sample \${worstUs.toFixed(0)} µs\`);
nvml.close();
TS

node --import tsx "$script" "$seconds"
