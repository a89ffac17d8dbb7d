// `nvidia-smi -q -x`: the full query as XML (`<nvidia_smi_log>`, DTD v10–v13), one document or several
// (`-q -x -l N`, or runs appended to one file). Each document is a snapshot at its `<timestamp>` (C's
// ctime, local time); per `<gpu id="bus">` the readings the text query gives (nvidia-smi-snapshot.ts),
// read element by element as the stream goes, so a day-long `-l 1` log is never held whole. Elements the
// table below does not name are skipped; `max_clocks`, `applications_clocks` and `aggregate` ECC counts
// reuse child names and are not readings of the moment, which is why a reading is named by its parent too.
// nvidia-smi's own lines between documents (a GPU it cannot reach) are gpu_lost events.
import { headLines } from './line-reader';
import { LogClock } from './log-time';
import { LOST_LINE } from './nvidia-smi';
import { CTIME, ctimeMs, NO_GPU, QueryGpu, READ, SnapshotWriter, type EccCounter, type Reading } from './nvidia-smi-snapshot';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';

/** Readings by `parent/element`. */
const READINGS: Record<string, Reading> = {
  'gpu/performance_state': READ.pstate,
  'gpu/fan_speed': READ.fan,
  'gpu/gpu_recovery_action': READ.recoveryAction,
  'gpu_reset_status/reset_required': READ.resetRequired,
  'gpu_reset_status/drain_and_reset_recommended': READ.drainAndReset,
  'fb_memory_usage/total': READ.memTotal,
  'fb_memory_usage/reserved': READ.memReserved,
  'fb_memory_usage/used': READ.memUsed,
  'fb_memory_usage/free': READ.memFree,
  'bar1_memory_usage/used': READ.bar1Used,
  'utilization/gpu_util': READ.util,
  'utilization/memory_util': READ.memUtil,
  'utilization/encoder_util': READ.encUtil,
  'utilization/decoder_util': READ.decUtil,
  'utilization/jpeg_util': READ.jpgUtil,
  'utilization/ofa_util': READ.ofaUtil,
  'temperature/gpu_temp': READ.temp,
  'temperature/memory_temp': READ.memTemp,
  // <power_readings> before DTD v12, <gpu_power_readings> after (with average and instantaneous draw).
  'power_readings/power_draw': READ.power,
  'power_readings/enforced_power_limit': READ.powerLimit,
  'gpu_power_readings/power_draw': READ.power,
  // R550+ print only the average and the instantaneous draw; the average is what power.draw reads on Ampere and later.
  'gpu_power_readings/average_power_draw': READ.power,
  'gpu_power_readings/instant_power_draw': READ.powerInstant,
  'gpu_power_readings/enforced_power_limit': READ.powerLimit,
  'gpu_power_readings/current_power_limit': READ.powerLimit,
  'clocks/graphics_clock': READ.grClock,
  'clocks/sm_clock': READ.smClock,
  'clocks/mem_clock': READ.memClock,
  'remapped_rows/remapped_row_pending': READ.remapPending,
  'remapped_rows/remapped_row_failure': READ.remapFailure,
  'pci/replay_counter': READ.pcieReplays,
  'pci/tx_util': READ.pcieTx,
  'pci/rx_util': READ.pcieRx,
};

/** Volatile ECC counters by `parent/element` (under `ecc_errors/volatile`). */
const ECC: Record<string, EccCounter> = {
  'single_bit/total': 'sbe-total',
  'double_bit/total': 'dbe-total',
  'volatile/sram_correctable': 'sram-correctable',
  'volatile/dram_correctable': 'dram-correctable',
  'volatile/sram_uncorrectable': 'sram-uncorrectable',
  'volatile/sram_uncorrectable_parity': 'sram-uncorrectable-part',
  'volatile/sram_uncorrectable_secded': 'sram-uncorrectable-part',
  'volatile/dram_uncorrectable': 'dram-uncorrectable',
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (s: string) => (s.includes('&') ? s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITIES[e]) : s);

/** nvidia-smi's elements nest 6 deep at most (gpu › ecc_errors › volatile › single_bit › total). */
const MAX_DEPTH = 64;

/** An element's text is never long; past this, a run without `<` is not nvidia-smi's (and is not buffered). */
const MAX_TEXT = 64 * 1024;

async function importSmiXml(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const clock = new LogClock(ctx);
  const w = new SnapshotWriter(sink);
  const path: string[] = [];
  let gpu: QueryGpu | null = null;
  let ts = NaN;
  let line = 1;
  const now = (): number => (Number.isFinite(ts) ? ts : (ts = clock.fallback(line, 'nvidia-smi XML without its <timestamp>')));

  /** An element with text only, at its end tag (`path` ends with it still). */
  const leaf = (name: string, text: string): void => {
    const parent = path[path.length - 2] ?? '';
    if (parent === 'nvidia_smi_log' && name === 'timestamp') {
      const m = CTIME.exec(text.trim());
      if (m && Number.isFinite((ts = ctimeMs(m, clock)))) w.at(ts);
      return;
    }
    const g = gpu;
    // A MIG-enabled GPU's slices have their own memory and ECC elements: not the GPU's.
    if (!g || path.includes('mig_devices')) return;
    if (parent === 'gpu') {
      if (name === 'product_name') g.labels.gpu_model = text.trim();
      else if (name === 'uuid') g.labels.gpu_uuid = text.trim();
    }
    const key = `${parent}/${name}`;
    const r = READINGS[key];
    if (r) return g.reading(r, text, now());
    if (parent === 'clocks_event_reasons' || parent === 'clocks_throttle_reasons') return g.reason(name.replace(/^clocks_(?:event|throttle)_reason_/, ''), text);
    const ecc = ECC[key];
    if (ecc && path.includes('volatile') && path.includes('ecc_errors')) return g.eccCount(ecc, text);
    if (parent === 'process_info') {
      if (name === 'pid') g.processPid(text);
      else if (name === 'process_name') g.processName(text);
      else if (name === 'used_memory') g.processMemory(text, now());
    }
  };

  // Tags and the text between them, as the stream goes; `rest` holds an unfinished tag.
  let rest = '';
  let text = '';
  let open: string | null = null;
  let sawLog = false;
  const outside = (t: string): void => {
    for (const l of t.split('\n')) {
      const lost = NO_GPU.exec(l);
      // Written to stderr before the document it goes with: that document's time (w.at), else the last.
      if (lost) w.lostGpu(null, line, `nvidia-smi: ${lost[1]}`, LOST_LINE.exec(l)?.[1] ?? null);
    }
  };
  const tag = (body: string): void => {
    if (body[0] === '?' || body[0] === '!') return;
    if (body[0] === '/') {
      const name = body.slice(1).trim();
      if (open === name) leaf(name, unescape(text));
      open = null;
      if (path[path.length - 1] !== name) return;
      path.pop();
      if (name === 'gpu' && gpu) {
        gpu.end(now());
        gpu = null;
      }
      return;
    }
    const selfClosing = body.endsWith('/');
    const m = /^([A-Za-z_][\w.-]*)((?:\s[^]*)?)$/.exec(selfClosing ? body.slice(0, -1) : body);
    if (!m) return;
    const name = m[1];
    if (name === 'nvidia_smi_log') {
      if (gpu) gpu.end(now());
      gpu = null;
      path.length = 0;
      ts = NaN;
      sawLog = true;
      w.snapshots++;
    } else if (name === 'gpu' && path[path.length - 1] === 'nvidia_smi_log') {
      const id = /\bid\s*=\s*"([^"]*)"/.exec(m[2]);
      gpu = new QueryGpu(w, id ? id[1] : String(w.snapshots));
    }
    if (selfClosing) return;
    if (path.length >= MAX_DEPTH) throw new ImportError(ctx.path, { line }, `not nvidia-smi XML: elements nested deeper than ${MAX_DEPTH}`);
    path.push(name);
    open = name;
    text = '';
  };

  for await (const chunk of input.stream()) {
    let s = rest + chunk.toString('utf8');
    rest = '';
    let i = 0;
    for (;;) {
      const lt = s.indexOf('<', i);
      const body = lt < 0 ? s.slice(i) : s.slice(i, lt);
      if (body) {
        if (path.length === 0) outside(body);
        else if (open !== null && text.length + body.length <= MAX_TEXT) text += body;
      }
      if (lt < 0) {
        i = s.length;
        break;
      }
      const gt = s.indexOf('>', lt);
      if (gt < 0) {
        rest = s.slice(lt);
        if (rest.length > MAX_TEXT) throw new ImportError(ctx.path, { line }, 'not nvidia-smi XML: a tag longer than 64 KiB');
        i = s.length;
        break;
      }
      line += countLines(s, i, gt);
      tag(s.slice(lt + 1, gt));
      i = gt + 1;
    }
    s = '';
  }
  if (gpu) (gpu as QueryGpu).end(now());
  w.at(now());
  if (!sawLog) throw new ImportError(ctx.path, { line: 1 }, 'not nvidia-smi XML: no <nvidia_smi_log> element');
}

function countLines(s: string, from: number, to: number): number {
  let n = 0;
  for (let k = s.indexOf('\n', from); k >= 0 && k < to; k = s.indexOf('\n', k + 1)) n++;
  return n;
}

export function detectSmiXml(head: Buffer): number {
  const lines = headLines(head, 20).join('\n');
  return /<nvidia_smi_log>|<!DOCTYPE nvidia_smi_log\b/.test(lines) ? 0.95 : 0;
}

export const nvidiaSmiXmlImporter: Importer = {
  format: 'nvidia-smi-xml',
  detect: (head) => detectSmiXml(head),
  localTime: true,
  import: importSmiXml,
};
