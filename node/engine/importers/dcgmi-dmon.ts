// `dcgmi dmon -e <field ids>`: DCGM's own monitor, what NVIDIA's support and profiling guides ask for
// (`dcgmi dmon -e 203,252,1002,1005 -d 1000 > dmon.txt`). A `#Entity  GPUTL  FBUSD …` header of DCGM's short
// field names, a units row (`ID   W  C`), then one row an entity an interval (`GPU 0   98   61440 …`; MIG
// instances `GPU-I 1`, `GPU-CI 2`); the header may come again. Each short name is read as the DCGM field it
// names, through the same canonical table as dcgm-exporter's metrics (DCGM_FI_DEV_GPU_UTIL → gpu.util, MB →
// bytes, % → fraction); a name not in the table below keeps its own (`dcgmi.<SHORT>`). `N/A` is no reading.
// dmon prints no times: an interval ends when an entity comes again, and the intervals are laid one second
// apart (dmon's default -d 1000) ending at the file's mtime — warned, as the times are a guess.
import type { Labels } from '../signals/canonical';
import { GarbageGuard } from './garbage-guard';
import { headLines, lineBatches } from './line-reader';
import { LogClock } from './log-time';
import { classify, PromSeriesMapper, type Target } from './prom-series';
import type { EntryInput, ImportContext, Importer, Sink } from './types';

/** dcgmi's short field names (`dcgmi dmon -l`) → the DCGM field they stand for. */
const SHORT: Record<string, string> = {
  SMCLK: 'DCGM_FI_DEV_SM_CLOCK',
  MMCLK: 'DCGM_FI_DEV_MEM_CLOCK',
  MMTMP: 'DCGM_FI_DEV_MEMORY_TEMP',
  TMPTR: 'DCGM_FI_DEV_GPU_TEMP',
  POWER: 'DCGM_FI_DEV_POWER_USAGE',
  TOTEC: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',
  PCIRP: 'DCGM_FI_DEV_PCIE_REPLAY_COUNTER',
  GPUTL: 'DCGM_FI_DEV_GPU_UTIL',
  MCUTL: 'DCGM_FI_DEV_MEM_COPY_UTIL',
  ENCUT: 'DCGM_FI_DEV_ENC_UTIL',
  DECUT: 'DCGM_FI_DEV_DEC_UTIL',
  XIDER: 'DCGM_FI_DEV_XID_ERRORS',
  FBTTL: 'DCGM_FI_DEV_FB_TOTAL',
  FBFRE: 'DCGM_FI_DEV_FB_FREE',
  FBUSD: 'DCGM_FI_DEV_FB_USED',
  GRACT: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
  SMACT: 'DCGM_FI_PROF_SM_ACTIVE',
  SMOCC: 'DCGM_FI_PROF_SM_OCCUPANCY',
  TENSO: 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE',
  DRAMA: 'DCGM_FI_PROF_DRAM_ACTIVE',
  FP64A: 'DCGM_FI_PROF_PIPE_FP64_ACTIVE',
  FP32A: 'DCGM_FI_PROF_PIPE_FP32_ACTIVE',
  FP16A: 'DCGM_FI_PROF_PIPE_FP16_ACTIVE',
  PCITX: 'DCGM_FI_PROF_PCIE_TX_BYTES',
  PCIRX: 'DCGM_FI_PROF_PCIE_RX_BYTES',
  NVLTX: 'DCGM_FI_PROF_NVLINK_TX_BYTES',
  NVLRX: 'DCGM_FI_PROF_NVLINK_RX_BYTES',
};

const HEADER = /^#\s*Entity\s+\S/;
/** An entity and its id: `GPU 0`, `GPU-I 1`, `GPU-CI 2`, `Switch 0`, `Link 3`, `CPU 0`, … */
const ROW = /^([A-Za-z][\w-]*)\s+(\d+)\s+(.*)$/;
const INTERVAL_MS = 1000;

async function importDcgmiDmon(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const clock = new LogClock(ctx);
  const guard = new GarbageGuard(ctx, 'dcgmi dmon output');
  const mapper = new PromSeriesMapper(sink);
  const targets = new Map<string, Target>();
  let cols: string[] = [];
  const rows: { interval: number; entity: string; id: string; cols: string[]; cells: string[] }[] = [];
  const seen = new Set<string>();
  let interval = 0;
  let no = 0;
  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (const line of batch) {
      no++;
      const t = line.trim();
      if (!t) continue;
      if (HEADER.test(t)) {
        cols = t.replace(/^#\s*Entity\s+/, '').split(/\s+/);
        guard.ok();
        continue;
      }
      // The units row under the header (`ID   W   C`).
      if (/^ID(\s|$)/.test(t)) {
        guard.ok();
        continue;
      }
      const m = ROW.exec(t);
      const cells = m ? m[3].split(/\s+/) : [];
      if (!m || !cols.length || cells.length !== cols.length) {
        guard.malformed(no, cols.length ? `expected an entity and ${cols.length} values` : 'a row before the "#Entity …" header');
        continue;
      }
      const entity = `${m[1]} ${m[2]}`;
      if (seen.has(entity)) {
        interval++;
        seen.clear();
      }
      seen.add(entity);
      // Rows wait for the end: their times count back from it.
      rows.push({ interval, entity: m[1], id: m[2], cols, cells });
      guard.ok();
    }
  }
  guard.finish(no);
  if (!rows.length) return;
  const end = clock.fallback(no, 'dcgmi dmon prints no times: one interval a second (its default -d 1000) assumed, the last');
  for (const r of rows) {
    const ts = end - (interval - r.interval) * INTERVAL_MS;
    // A MIG instance (`GPU-I 1`) is a GPU of its own to the model, as dcgm-exporter's GPU_I_ID makes it.
    const labels: Labels = r.entity === 'GPU' ? { gpu: r.id } : r.entity === 'GPU-I' ? { entity: `${r.entity} ${r.id}`, GPU_I_ID: r.id } : { entity: `${r.entity} ${r.id}` };
    for (let k = 0; k < r.cells.length; k++) {
      const col = r.cols[k];
      const cell = r.cells[k];
      const v = Number(cell);
      if (cell === 'N/A' || !Number.isFinite(v)) continue;
      const metric = SHORT[col] ?? `dcgmi.${col}`;
      const key = `${metric}\u0000${r.entity}\u0000${r.id}`;
      let target = targets.get(key);
      if (!target) targets.set(key, (target = mapper.target(metric, labels, classify(metric, labels, () => undefined))));
      mapper.write(target, ts, v);
    }
  }
  mapper.flush();
}

export function detectDcgmiDmon(head: Buffer): number {
  const lines = headLines(head, 20).map((l) => l.trim()).filter((l) => l);
  const i = lines.findIndex((l) => HEADER.test(l));
  if (i < 0) return 0;
  const next = lines.slice(i + 1, i + 3);
  return next.some((l) => /^ID(\s|$)/.test(l) || /^GPU(?:-C?I)?\s+\d+\s/.test(l)) ? 0.9 : 0;
}

export const dcgmiDmonImporter: Importer = {
  format: 'dcgmi-dmon',
  detect: (head) => detectDcgmiDmon(head),
  import: importDcgmiDmon,
};
