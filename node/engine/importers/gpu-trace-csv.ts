// The GPU timelines that profilers print as CSV, beside the databases they come from:
//
// - `nsys stats --format csv` (Nsight Systems 2021–2025): the trace reports — `cuda_gpu_trace` (`gputrace`
//   before 2022: kernels, memcpys, memsets with `Start (ns)`, `Duration (ns)`, `CorrId`, grid and block,
//   `Device`, `Ctx`, `Strm`, `Name`), `cuda_api_trace` (runtime calls: `Name`, `Result`, `CorrID`, `Pid`,
//   `Tid`) and `nvtx_pushpop_trace`/`nvtx_startend_trace` (ranges: `Start (ns)`, `End (ns)`, `Name`, `PID`,
//   `TID`, `RangeId`) — one or several in one file, each after nsys' own `Processing [x.sqlite] with
//   [report.py]...` line. Column names change between versions (`Start(ns)`, `Thru(MB/s)`): a column is
//   known by its name without spaces or unit, and its unit by the parenthesis.
//   nsys' own column format (no `--format`: titles over dashed lines, numbers with thousands separators) is
//   read the same way, each column where its dashes are.
// - `nvprof --csv --print-gpu-trace` (and `--print-api-trace`): `==PID==` and `========` lines, a header,
//   then a row of units (`ms,us,,,…`) that times are read in.
//
// Times are relative to the start of the capture, which neither prints: the capture is placed to end at the
// end of the bundle's other sources, else at the file's mtime — warned (as Nsight's SQLite exports without a
// session start are, nsys-sqlite.ts). Kernels, memcpys and memsets go to `kernels` (attrs kind
// 'kernel' | 'memcpy' | 'memset', source, grid, block, registers, size and size_unit, context, launch_span_id
// 'c<correlation id>', time_relative), runtime calls to spans 'c<correlation id>' (cat 'cuda_runtime') and NVTX
// ranges to spans 'n<range id>' (cat 'nvtx'), each under trace 'nsys:<pid>' / 'nvprof'. Summary reports
// (`cuda_gpu_kern_sum`, `Time (%)` columns, nvprof's default summary) hold no times: a file of only those
// fails saying which reports or export to give instead; beside a trace they are skipped, warned.
import { ImportError, type ImportContext, type Importer, type KernelRecord, type Sink, type SpanRecord } from './types';
import { csvFields } from './csv-fields';
import { LogClock } from './log-time';
import { headLines } from './line-reader';
import { readText } from './read-text';

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };

/** The longest capture read (about 115 days, in ns): a row past it is no row of a profile but a broken number. */
const MAX_RELATIVE_NS = 1e16;

/** A column's name as a key: lower case, without spaces, its unit or punctuation (`Start (ns)` → start, `Reg/Trd` → regtrd). */
const keyOf = (name: string) => name.replace(/\([^)]*\)/g, '').replace(/[^A-Za-z0-9%]/g, '').toLowerCase();
/** A column's unit where its name carries one (`Start (ns)` → ns). */
const unitOf = (name: string) => /\((ns|us|ms|s)\)/.exec(name)?.[1] ?? null;

type Kind = 'gpu' | 'api' | 'nvtx' | 'summary' | null;

interface Section {
  tool: 'nsys' | 'nvprof';
  kind: Kind;
  col: Map<string, number>;
  /** ns per unit of each time column. */
  scale: Map<string, number>;
  /** Each column's unit as nvprof's units row gives it (`KB`, `GB/s`). */
  units: Map<string, string>;
  header: string[];
  line: number;
}

function sectionOf(header: string[], tool: 'nsys' | 'nvprof', line: number): Section {
  const col = new Map<string, number>();
  const scale = new Map<string, number>();
  header.forEach((h, i) => {
    const k = keyOf(h);
    if (!col.has(k)) col.set(k, i);
    const u = unitOf(h);
    if (u) scale.set(k, UNIT_NS[u]);
  });
  let kind: Kind = null;
  if (header.some((h) => /^Time ?\(%\)$/.test(h.trim())) || col.has('instances') || col.has('numcalls') || col.has('calls')) kind = 'summary';
  else if (!col.has('start') || !col.has('name')) kind = null;
  else if (col.has('device') || col.has('strm') || col.has('stream')) kind = 'gpu';
  else if (col.has('end') || col.has('rangeid') || col.has('lvl')) kind = 'nvtx';
  else if (col.has('duration')) kind = 'api';
  return { tool, kind, col, scale, units: new Map(), header, line };
}

/** The header of an nsys stats table in its own column format (a line of dashes follows it). */
const TEXT_HEADER = /^\s*(?:Start ?\(ns\)\s{2,}|Time ?\(%\)\s{2,}Total Time)/;

/** A header line of a report nsys or nvprof writes as CSV, and whose. */
function headerTool(line: string): 'nsys' | 'nvprof' | null {
  if (/^"?Start ?\((?:ns|us|ms)\)"?,/.test(line) || /^"?Time ?\(%\)"?,"?Total Time ?\(ns\)"?,/.test(line)) return 'nsys';
  if (/^"Start","Duration",/.test(line) || /^"Type","Time\(%\)","Time","Calls",/.test(line) || /^"Time\(%\)","Time","Calls","Avg",/.test(line)) return 'nvprof';
  return null;
}

interface Row {
  s: Section;
  f: string[];
  line: number;
}

/**
 * nsys stats' own column format (its default, without `--format csv`): a header of titles, a line of dashes
 * under each column, right-aligned numbers with thousands separators. Answers each column's span.
 */
function textColumns(header: string, dashes: string): { names: string[]; spans: [number, number][] } | null {
  if (!/^[\s-]+$/.test(dashes) || !dashes.includes('--')) return null;
  const spans: [number, number][] = [];
  for (const m of dashes.matchAll(/-+/g)) spans.push([m.index!, m.index! + m[0].length]);
  // A column's cells may run left of its dashes (right-aligned numbers wider than the title): each span starts after the one before.
  // Titles are two spaces or more apart: read that way where they count as many as the dashes (a header
  // pasted out of line with its table, a space short, read `tart (ns)` by position), else by position.
  const words = header.trim().split(/\s{2,}/);
  const names = words.length === spans.length ? words : spans.map(([a, b]) => header.slice(a, b).trim());
  return names.some((n) => n) ? { names, spans } : null;
}

function textCells(line: string, spans: [number, number][]): string[] {
  return spans.map(([, b], i) => {
    const from = i === 0 ? 0 : spans[i - 1][1];
    const to = i === spans.length - 1 ? line.length : b;
    return line.slice(from, to).trim();
  });
}

/** The device's number in `NVIDIA H100 80GB HBM3 (0)`, `GeForce GTX 950 (0)` or `0`. */
function deviceOf(cell: string): number {
  const m = /\((\d+)\)\s*$/.exec(cell) ?? /^(\d+)$/.exec(cell.trim());
  return m ? Number(m[1]) : 0;
}

const num = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const t = s.trim().replace(/,/g, '');
  if (!t) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
};

async function importGpuTraceCsv(input: { stream(): AsyncIterable<Buffer> }, sink: Sink, ctx: ImportContext): Promise<void> {
  const lines = (await readText(input.stream())).replace(/^\uFEFF/, '').split(/\r?\n/);
  const rows: Row[] = [];
  let section: Section | null = null;
  /** Column spans of an nsys text table (its own column format), else null for CSV. */
  let spans: [number, number][] | null = null;
  /** nvprof writes the units of its columns in the row under the header. */
  let unitsRow = false;
  let summaries = 0;
  let bad = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const text = raw.trim();
    if (!text) {
      section = null;
      continue;
    }
    if (/^==\d+==|^========|^Processing \[|^SKIPPED:|^NOTICE:|^Generating SQLite|^\*\* /.test(text)) {
      section = null;
      continue;
    }
    const tool = headerTool(text);
    if (tool) {
      section = sectionOf(csvFields(text), tool, i + 1);
      spans = null;
      if (section.kind === 'summary') summaries++;
      unitsRow = tool === 'nvprof';
      continue;
    }
    const table = TEXT_HEADER.test(raw) ? textColumns(raw, lines[i + 1] ?? '') : null;
    if (table) {
      section = sectionOf(table.names, 'nsys', i + 1);
      spans = table.spans;
      if (section.kind === 'summary') summaries++;
      unitsRow = false;
      i++;
      continue;
    }
    if (!section || !section.kind || section.kind === 'summary') continue;
    const f = spans ? textCells(raw, spans) : csvFields(text);
    if (unitsRow) {
      unitsRow = false;
      // `ms,us,,,…`: the unit of each column (nvprof prints times in the unit it chose for the file).
      if (f.every((c) => c === '' || /^[%A-Za-z/]+$/.test(c))) {
        f.forEach((u, j) => {
          const k = keyOf(section!.header[j] ?? '');
          if (UNIT_NS[u] !== undefined) section!.scale.set(k, UNIT_NS[u]);
          if (u) section!.units.set(k, u);
        });
        continue;
      }
    }
    if (f.length < 2 || num(f[section.col.get('start')!]) === null) {
      bad++;
      if (bad <= 20) ctx.warn('not a row of the report above it, skipped', { line: i + 1 });
      continue;
    }
    rows.push({ s: section, f, line: i + 1 });
  }
  if (!rows.length) {
    if (summaries) throw new ImportError(ctx.path, { line: 1 }, 'only summary reports, which hold no times: give `nsys stats -r cuda_gpu_trace,cuda_api_trace,nvtx_pushpop_trace --format csv`, `nvprof --print-gpu-trace --csv`, or the `nsys export --type sqlite` file itself');
    throw new ImportError(ctx.path, { line: 1 }, 'no trace rows (cuda_gpu_trace, cuda_api_trace, nvtx ranges, or nvprof --print-gpu-trace)');
  }
  if (summaries) ctx.warn(`${summaries} summary reports skipped (they hold no times)`);
  if (bad > 20) ctx.warn(`${bad - 20} more rows that were not rows skipped`);

  // Relative ns of every row, then one offset for them all: the capture ends where the bundle (or the mtime) says.
  const get = (r: Row, k: string) => {
    const j = r.s.col.get(k);
    return j === undefined ? '' : (r.f[j] ?? '');
  };
  const nsOf = (r: Row, k: string): number | null => {
    const v = num(get(r, k));
    return v === null ? null : v * (r.s.scale.get(k) ?? (r.s.tool === 'nsys' ? 1 : 1e6));
  };
  const spanOf = (r: Row): [number, number] | null => {
    const start = nsOf(r, 'start');
    if (start === null || Math.abs(start) > MAX_RELATIVE_NS) return null;
    const end = nsOf(r, 'end') ?? start + Math.max(0, nsOf(r, 'duration') ?? 0);
    return end >= start && end - start <= MAX_RELATIVE_NS ? [start, end] : null;
  };
  let last = -Infinity;
  for (const r of rows) {
    const sp = spanOf(r);
    if (sp && sp[1] > last) last = sp[1];
  }
  if (last === -Infinity) throw new ImportError(ctx.path, { line: rows[0].line }, 'no row with a start and duration a capture can have');
  const endMs = new LogClock(ctx).anchor('the report\'s times are relative to the capture start, which it does not say; its end');
  const offset = BigInt(Math.round(endMs)) * 1_000_000n - BigInt(Math.round(last));
  const abs = (ns: number) => offset + BigInt(Math.round(ns));

  let skipped = 0;
  for (const r of rows) {
    const sp = spanOf(r);
    if (!sp) {
      if (++skipped <= 20) ctx.warn('a start or duration no capture has (negative, or past 115 days): row skipped', { line: r.line });
      continue;
    }
    // nvprof has no correlation column: it appends the id of the API call behind a row to its name
    // (`mergeSortKernel(unsigned int*) [1105]`, `cudaLaunch (mergeSortKernel…) [1105]`; CUDA Profiler User's
    // Guide, GPU-Trace and API-Trace modes), which would make every launch a kernel of its own name.
    const tagged = r.s.tool === 'nvprof' ? /^(.*\S) \[(\d+)\]$/.exec(get(r, 'name')) : null;
    const name = tagged ? tagged[1] : get(r, 'name');
    const corr = num(get(r, 'corrid') || get(r, 'correlationid') || (tagged ? tagged[2] : ''));
    if (r.s.kind === 'gpu') {
      const kind = /^\[CUDA memcpy|^\[Unified Memory Memcpy|^Memcpy/i.test(name) ? 'memcpy' : /^\[CUDA memset|^Memset/i.test(name) ? 'memset' : 'kernel';
      const grid = [get(r, 'grdx') || get(r, 'gridx'), get(r, 'grdy') || get(r, 'gridy'), get(r, 'grdz') || get(r, 'gridz')];
      const block = [get(r, 'blkx') || get(r, 'blockx'), get(r, 'blky') || get(r, 'blocky'), get(r, 'blkz') || get(r, 'blockz')];
      const k: KernelRecord = {
        device: deviceOf(get(r, 'device')),
        stream: num(get(r, 'strm') || get(r, 'stream')) ?? 0,
        name,
        start_ns: abs(sp[0]),
        end_ns: abs(sp[1]),
        correlation_id: corr,
        attrs: {
          kind,
          source: r.s.tool === 'nsys' ? 'nsys-stats' : 'nvprof',
          time_relative: true,
          context: num(get(r, 'ctx') || get(r, 'context')),
          ...(grid[0] ? { grid: `(${grid.join(', ')})`, block: `(${block.join(', ')})` } : {}),
          ...(num(get(r, 'regtrd') || get(r, 'registersperthread')) !== null ? { registers_per_thread: num(get(r, 'regtrd') || get(r, 'registersperthread')) } : {}),
          // In the table's own unit (nsys' MB, nvprof's KB…), named apart from nsys-sqlite's `bytes`, which are bytes.
          ...(num(get(r, 'bytes') || get(r, 'size')) !== null ? { size: num(get(r, 'bytes') || get(r, 'size')), size_unit: unitOfColumn(r, 'bytes', 'size') } : {}),
          ...(get(r, 'srcmemkd') || get(r, 'srcmemtype') ? { src_kind: get(r, 'srcmemkd') || get(r, 'srcmemtype'), dst_kind: get(r, 'dstmemkd') || get(r, 'dstmemtype') } : {}),
          ...(corr !== null ? { launch_span_id: `c${corr}` } : {}),
        },
      };
      sink.kernel(k);
    } else {
      const pid = get(r, 'pid');
      const s: SpanRecord = {
        trace_id: r.s.tool === 'nsys' ? `nsys:${pid || '0'}` : 'nvprof',
        span_id: r.s.kind === 'api' ? `c${corr ?? `r${r.line}`}` : `n${get(r, 'rangeid') || `r${r.line}`}`,
        parent_id: null,
        name,
        start_ns: abs(sp[0]),
        end_ns: abs(sp[1]),
        attrs: {
          cat: r.s.kind === 'api' ? 'cuda_runtime' : 'nvtx',
          source: r.s.tool === 'nsys' ? 'nsys-stats' : 'nvprof',
          time_relative: true,
          ...(get(r, 'tid') ? { tid: num(get(r, 'tid')) } : {}),
          ...(corr !== null ? { correlation: corr } : {}),
          ...(get(r, 'result') ? { return_value: num(get(r, 'result')) } : {}),
          ...(get(r, 'threadname') ? { thread: get(r, 'threadname') } : {}),
        },
      };
      sink.span(s);
    }
  }
  if (skipped > 20) ctx.warn(`${skipped - 20} more rows with such times skipped`);
}

/** The unit of the byte column: nsys names it (`Bytes (MB)`), nvprof's units row says it (`KB`). */
function unitOfColumn(r: Row, ...keys: string[]): string {
  for (const k of keys) {
    const j = r.s.col.get(k);
    if (j === undefined) continue;
    const m = /\(([^)]+)\)/.exec(r.s.header[j]) ?? [null, r.s.units.get(k)];
    if (m[1]) return m[1];
  }
  return '';
}

export function detectGpuTraceCsv(head: Buffer, tool: 'nsys' | 'nvprof'): number {
  const lines = headLines(head, 400);
  if (lines.some((l) => headerTool(l.trim()) === tool)) return 0.9;
  return tool === 'nsys' && lines.some((l, i) => TEXT_HEADER.test(l) && textColumns(l, lines[i + 1] ?? '') !== null) ? 0.85 : 0;
}

export const nsysStatsCsvImporter: Importer = {
  format: 'nsys-stats-csv',
  // Relative times, placed at the end of the bundle's other sources.
  yearless: true,
  detect: (head) => detectGpuTraceCsv(head, 'nsys'),
  import: importGpuTraceCsv,
};

export const nvprofCsvImporter: Importer = {
  format: 'nvprof-csv',
  yearless: true,
  detect: (head) => detectGpuTraceCsv(head, 'nvprof'),
  import: importGpuTraceCsv,
};
