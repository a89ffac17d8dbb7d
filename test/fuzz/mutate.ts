// Seeded mutations of real files: what a damaged or hostile bundle looks like. Each mutation keeps the
// file name, so detection sees the same name with different bytes. Besides blind damage (bit flips,
// truncation, zero fill, bad UTF-8), each format family gets mutations built for it: giant tokens and
// unclosed structures for JSON, giant lines and label cardinality for text, memo fan-out, self-sharing
// lists and huge integers for pickles, hostile schemas and repeated rows for SQLite exports — the shapes
// that made work grow faster than the input.
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { rng } from '../helpers/rng';

export type Family = 'json' | 'pickle' | 'text' | 'sqlite';

const GENERIC = ['flip', 'truncate', 'huge-number', 'utf16', 'bad-utf8', 'duplicate-chunk', 'zero-fill', 'gzip-truncate'] as const;
const JSON_ONLY = ['deep-nesting', 'giant-token', 'unclosed-string', 'unclosed-object', 'giant-line', 'repeat-events', 'repeat-word'] as const;
const TEXT_ONLY = ['giant-line', 'giant-token', 'tiny-lines', 'cardinality', 'deep-nesting', 'repeat-word'] as const;
const PICKLE_ONLY = ['memo-fanout', 'memo-late-fill', 'segment-fanout', 'self-sharing', 'huge-long', 'deep-list', 'truncate-frame'] as const;
const SQLITE_ONLY = ['table-as-view', 'unkeyed-strings', 'repeat-rows', 'odd-values'] as const;

export type Mutation = (typeof GENERIC)[number] | (typeof JSON_ONLY)[number] | (typeof TEXT_ONLY)[number] | (typeof PICKLE_ONLY)[number] | (typeof SQLITE_ONLY)[number];

/** Mutations of the bytes as stored (a gzip'd seed is damaged as gzip); the others reshape the content. */
export const BYTE_LEVEL: ReadonlySet<Mutation> = new Set<Mutation>(GENERIC);

/**
 * The input for one job: a gzip'd seed gets content mutations inside its gzip (a giant token in the
 * trace, not in the compressed bytes) and byte-level ones on the file as stored.
 */
export function mutateFile(name: string, stored: Buffer, m: Mutation, seed: number, scale = 1): Buffer {
  if (!BYTE_LEVEL.has(m) && name.toLowerCase().endsWith('.gz')) return gzipSync(mutate(gunzipSync(stored), m, seed, scale), { level: 1 });
  return mutate(stored, m, seed, scale);
}

/** Every mutation, for listings. */
export const MUTATIONS: readonly Mutation[] = [...new Set<Mutation>([...GENERIC, ...JSON_ONLY, ...TEXT_ONLY, ...PICKLE_ONLY, ...SQLITE_ONLY])];

/** The family a seed belongs to, from its name (a gzip'd seed is its inner name's family). */
export function familyOf(name: string): Family {
  const n = name.replace(/\.gz$/, '').toLowerCase();
  if (n.endsWith('.pickle') || n.endsWith('.pkl')) return 'pickle';
  if (n.endsWith('.sqlite')) return 'sqlite';
  if (n.endsWith('.json')) return 'json';
  return 'text';
}

/** The mutations that fit a family: the generic ones and its own. */
export function mutationsFor(family: Family): readonly Mutation[] {
  const own = { json: JSON_ONLY, pickle: PICKLE_ONLY, text: TEXT_ONLY, sqlite: SQLITE_ONLY }[family];
  return [...GENERIC, ...own];
}

const MiB = 2 ** 20;

/** Mutations whose size is a parameter: run at two scales, their cost must grow about linearly. */
export const SCALABLE: ReadonlySet<Mutation> = new Set<Mutation>([
  'giant-line', 'giant-token', 'unclosed-string', 'unclosed-object', 'deep-nesting', 'tiny-lines', 'cardinality',
  'memo-fanout', 'memo-late-fill', 'segment-fanout', 'huge-long', 'deep-list', 'repeat-events', 'repeat-word', 'repeat-rows',
]);

/** `scale` multiplies the size of a SCALABLE mutation (the same seed gives the same shape, bigger). */
export function mutate(input: Buffer, m: Mutation, seed: number, scale = 1): Buffer {
  const r = rng(seed);
  const k = SCALABLE.has(m) ? scale : 1;
  const at = (n = input.length) => Math.floor(r() * Math.max(1, n));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  switch (m) {
    case 'flip': {
      const out = Buffer.from(input);
      const flips = 1 + Math.floor(r() * 32);
      for (let i = 0; i < flips && out.length; i++) out[at(out.length)] ^= 1 << Math.floor(r() * 8);
      return out;
    }
    case 'truncate':
      return input.subarray(0, at());
    case 'huge-number': {
      const s = input.toString('latin1');
      const huge = ['9'.repeat(400), '1e309', '-1e309', 'NaN', '18446744073709551616', '0x' + 'f'.repeat(40)][Math.floor(r() * 6)];
      let count = 0;
      return Buffer.from(s.replace(/\d+(\.\d+)?/g, (d) => (count++ % 7 === Math.floor(r() * 7) ? huge : d)), 'latin1');
    }
    case 'deep-nesting': {
      const p = at();
      const depth = Math.round((50_000 + Math.floor(r() * 50_000)) * k);
      return Buffer.concat([input.subarray(0, p), Buffer.from('['.repeat(depth) + '{"a":'.repeat(1000)), input.subarray(p)]);
    }
    case 'utf16': {
      const bom = Buffer.from([0xff, 0xfe]);
      return Buffer.concat([bom, Buffer.from(input.toString('utf8'), 'utf16le')]);
    }
    case 'bad-utf8': {
      const out = Buffer.from(input);
      for (let i = 0; i < 64 && out.length; i++) out[at(out.length)] = [0xff, 0xfe, 0xc0, 0x80, 0xed][Math.floor(r() * 5)];
      return out;
    }
    case 'giant-line': {
      const p = at();
      return Buffer.concat([input.subarray(0, p), Buffer.alloc(Math.round((2 + Math.floor(r() * 6)) * MiB * k), 'x'), input.subarray(p)]);
    }
    case 'duplicate-chunk': {
      const a = at();
      const len = Math.min(input.length - a, 1 + at(4096));
      return Buffer.concat([input.subarray(0, a + len), input.subarray(a, a + len), input.subarray(a + len)]);
    }
    case 'zero-fill': {
      const out = Buffer.from(input);
      const a = at();
      out.fill(0, a, Math.min(out.length, a + 1 + at(65536)));
      return out;
    }
    case 'gzip-truncate': {
      const gz = gzipSync(input);
      return gz.subarray(0, Math.max(10, Math.floor(gz.length * r())));
    }
    case 'giant-token': {
      // A quoted token (a JSON string, a label value) grown to megabytes, newline-free.
      const s = input.toString('latin1');
      const quotes: number[] = [];
      for (let i = s.indexOf('"'); i >= 0 && quotes.length < 10_000; i = s.indexOf('"', i + 1)) quotes.push(i);
      const q = quotes.length ? pick(quotes) : at();
      return Buffer.concat([input.subarray(0, q + 1), Buffer.alloc(Math.round((1 + Math.floor(r() * 7)) * MiB * k), pick(['a', 'Z', '0', ' '])), input.subarray(q + 1)]);
    }
    case 'unclosed-string': {
      // Cut anywhere, then a string that never ends: the scanner must refuse it, not hold it for ever.
      const p = at();
      return Buffer.concat([input.subarray(0, p), Buffer.from('"'), Buffer.alloc(Math.round((4 + Math.floor(r() * 12)) * MiB * k), 'u')]);
    }
    case 'unclosed-object': {
      const p = at();
      const piece = Buffer.from('{"k":[1,{"x":"y"},');
      return Buffer.concat([input.subarray(0, p), Buffer.alloc(piece.length * Math.round((20_000 + Math.floor(r() * 100_000)) * k), piece)]);
    }
    case 'repeat-events': {
      // The whole events array again and again: legal JSON with many times the events (output grows with input).
      const s = input.toString('utf8');
      const a = s.indexOf('[');
      const b = s.lastIndexOf(']');
      if (a < 0 || b <= a + 1) return input;
      const body = s.slice(a + 1, b).trim();
      if (!body) return input;
      const times = Math.max(2, Math.round((2 + Math.floor(r() * 20)) * k));
      return Buffer.from(`${s.slice(0, a + 1)}${Array.from({ length: times }, () => body).join(',')}${s.slice(b)}`);
    }
    case 'repeat-word': {
      // A line with one word of the file repeated to megabytes inside it (with or without a space after
      // each): what an unanchored `word.*(?:a|b)` or `[A-Za-z_.]*Error` tries from every mention to the
      // line's end (quadratic: the review's 1 MB of "ProcessGroupNCCL " took 80 s). The word is any
      // identifier of the file, the place a word boundary of a random line, so a JSON string stays one.
      const s = input.toString('latin1');
      const tokens: string[] = [];
      for (const m of s.matchAll(/[A-Za-z_][\w.]{2,40}/g)) if (tokens.push(m[0]) >= 20_000) break;
      const lines = s.split('\n');
      const li = at(lines.length);
      const line = lines[li];
      const spaces: number[] = [line.length];
      for (let i = line.indexOf(' '); i >= 0 && spaces.length < 1000; i = line.indexOf(' ', i + 1)) spaces.push(i + 1);
      const p = pick(spaces);
      const unit = (tokens.length ? pick(tokens) : 'x') + (r() < 0.5 ? ' ' : '');
      const n = Math.max(1, Math.round(((256 * 1024 + r() * 768 * 1024) * k) / unit.length));
      lines[li] = line.slice(0, p) + unit.repeat(n) + line.slice(p);
      return Buffer.from(lines.join('\n'), 'latin1');
    }
    case 'tiny-lines': {
      // Legal, dense exposition: one sample per few bytes, the densest rows-per-byte a text format gives.
      const n = Math.round((100_000 + Math.floor(r() * 400_000)) * k);
      const head = input.subarray(0, Math.min(input.length, 4096));
      const nl = head.lastIndexOf(0x0a);
      return Buffer.concat([head.subarray(0, nl + 1), Buffer.from('# TYPE a gauge\n'), Buffer.alloc(n * 4, 'a 1\n')]);
    }
    case 'cardinality': {
      // A new series on every line (a request id as a label).
      const n = Math.round((20_000 + Math.floor(r() * 60_000)) * k);
      const lines: string[] = ['# TYPE vllm:num_requests_running gauge'];
      for (let i = 0; i < n; i++) lines.push(`vllm:num_requests_running{model_name="m",id="${i}"} ${i % 9} ${1_773_478_800_000 + i}`);
      return Buffer.from(lines.join('\n') + '\n');
    }
    case 'memo-fanout':
      return traceFanout(Math.round((200 + Math.floor(r() * 3000)) * Math.sqrt(k)), Math.round((200 + Math.floor(r() * 3000)) * Math.sqrt(k)));
    case 'memo-late-fill':
      return lateFill(Math.round((1000 + Math.floor(r() * 100_000)) * k));
    case 'segment-fanout':
      return segmentFanout(Math.round((100 + Math.floor(r() * 2000)) * Math.sqrt(k)), Math.round((1000 + Math.floor(r() * 20_000)) * Math.sqrt(k)));
    case 'self-sharing':
      return selfSharing(10 + Math.floor(r() * 30), pick(['frames', 'key', 'value'] as const));
    case 'huge-long':
      return hugeLong(Math.round(2 ** (10 + r() * 10) * k));
    case 'deep-list': {
      const depth = Math.round((10_000 + Math.floor(r() * 200_000)) * k);
      return Buffer.concat([Buffer.from([0x80, 2]), Buffer.alloc(depth, 0x5d), Buffer.alloc(depth - 1, 0x61), Buffer.from([0x2e])]);
    }
    case 'table-as-view':
    case 'unkeyed-strings':
    case 'repeat-rows':
    case 'odd-values':
      return reshapeSqlite(input, m, r, k);
    case 'truncate-frame': {
      // A FRAME opcode or a length that promises more than is there.
      const out = Buffer.from(input);
      const p = Math.max(2, at());
      return Buffer.concat([out.subarray(0, p), Buffer.from([pick([0x95, 0x8d, 0x8e, 0x58, 0x8b])]), Buffer.from([0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0]), out.subarray(p)]);
    }
  }
}

// ---- pickle shapes (protocol 4 opcodes, as CPython's pickler writes them)

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const str = (s: string) => Buffer.concat([Buffer.from([0x8c, Buffer.byteLength(s)]), Buffer.from(s)]);
/** BINGET for small memo keys, LONG_BINGET beyond. */
const get = (i: number) => (i < 256 ? Buffer.from([0x68, i]) : Buffer.concat([Buffer.from([0x6a]), u32(i)]));
const ENTRY = Buffer.concat([
  Buffer.from([0x7d, 0x94, 0x28]),
  str('action'), str('alloc'), str('addr'), Buffer.from([0x4a]), u32(4096), str('size'), Buffer.from([0x4a]), u32(512),
  str('stream'), Buffer.from([0x4b, 0]), str('time_us'), Buffer.from([0x8a, 8]), Buffer.from('0060a8ce0ee90500', 'hex'),
  Buffer.from([0x75]),
]);

/** {segments: [], device_traces: [T] * devices}, T = [entry] * entries, all by memo references. */
function traceFanout(devices: number, entries: number): Buffer {
  const parts = [Buffer.from([0x80, 4, 0x7d, 0x28]), str('segments'), Buffer.from([0x5d]), str('device_traces'), Buffer.from([0x5d, 0x28])];
  parts.push(Buffer.from([0x5d, 0x94, 0x28]), ENTRY); // T is memo 0, the entry memo 1
  for (let i = 1; i < entries; i++) parts.push(get(1));
  parts.push(Buffer.from([0x65]));
  for (let i = 1; i < devices; i++) parts.push(get(0));
  parts.push(Buffer.from([0x65, 0x75, 0x2e]));
  return Buffer.concat(parts);
}

/** device_traces = [T] * n while T is empty, then n entries appended to T. */
function lateFill(n: number): Buffer {
  const parts = [Buffer.from([0x80, 4, 0x7d, 0x28]), str('segments'), Buffer.from([0x5d]), str('device_traces'), Buffer.from([0x28, 0x5d, 0x94])];
  for (let i = 1; i < n; i++) parts.push(get(0));
  parts.push(Buffer.from([0x6c, 0x94]), get(0), Buffer.from([0x28]), ENTRY);
  for (let i = 1; i < n; i++) parts.push(get(2));
  parts.push(Buffer.from([0x65, 0x30, 0x75, 0x2e]));
  return Buffer.concat(parts);
}

/** segments = [seg] * count, seg.blocks = [block] * blocks: little fan-out to decode, much to walk. */
function segmentFanout(count: number, blocks: number): Buffer {
  const block = Buffer.concat([Buffer.from([0x7d, 0x94, 0x28]), str('state'), str('active_allocated'), str('size'), Buffer.from([0x4a]), u32(512), str('address'), Buffer.from([0x4a]), u32(8192), Buffer.from([0x75])]);
  const parts = [Buffer.from([0x80, 4, 0x7d, 0x28]), str('segments'), Buffer.from([0x28])];
  parts.push(Buffer.from([0x7d, 0x94, 0x28]), str('device'), Buffer.from([0x4b, 0]), str('total_size'), Buffer.from([0x4a]), u32(1 << 20), str('blocks'), Buffer.from([0x28]), block);
  for (let i = 1; i < blocks; i++) parts.push(get(1));
  parts.push(Buffer.from([0x6c, 0x75])); // LIST (blocks), SETITEMS (seg)
  for (let i = 1; i < count; i++) parts.push(get(0));
  parts.push(Buffer.from([0x6c]), str('device_traces'), Buffer.from([0x5d, 0x75, 0x2e]));
  return Buffer.concat(parts);
}

/** A list holding itself twice, `levels` deep (2^levels when expanded), as frames, a dict key or a value. */
function selfSharing(levels: number, where: 'frames' | 'key' | 'value'): Buffer {
  const M = 250;
  const bomb = [0x5d, 0x71, M, 0x30];
  for (let i = 0; i < levels; i++) bomb.push(0x28, 0x68, M, 0x68, M, 0x6c, 0x71, M, 0x30);
  bomb.push(0x68, M);
  const b = Buffer.from(bomb);
  const head = Buffer.concat([Buffer.from([0x80, 4, 0x7d, 0x28]), str('segments'), Buffer.from([0x5d]), str('device_traces'), Buffer.from([0x28, 0x28])]);
  const entry = (frames: Buffer) => Buffer.concat([Buffer.from([0x7d, 0x28]), str('action'), str('alloc'), str('addr'), Buffer.from([0x4a]), u32(4096), str('size'), Buffer.from([0x4a]), u32(512), str('time_us'), Buffer.from([0x4a]), u32(1), str('frames'), frames, Buffer.from([0x75])]);
  if (where === 'frames') return Buffer.concat([head, entry(Buffer.concat([Buffer.from([0x28]), b, Buffer.from([0x6c])])), Buffer.from([0x6c, 0x6c, 0x75, 0x2e])]);
  if (where === 'key') return Buffer.concat([Buffer.from([0x80, 4, 0x7d]), b, Buffer.from([0x4b, 1, 0x73, 0x2e])]);
  return Buffer.concat([Buffer.from([0x80, 4, 0x7d, 0x28]), str('segments'), b, Buffer.from([0x75, 0x2e])]);
}

/** {segments: [], blocks: 0, x: <an integer of `bytes` bytes>}. */
function hugeLong(bytes: number): Buffer {
  const body = Buffer.alloc(bytes, 0x5a);
  return Buffer.concat([Buffer.from([0x80, 4, 0x7d, 0x28]), str('segments'), Buffer.from([0x5d]), str('blocks'), Buffer.from([0x4b, 0]), str('x'), Buffer.from([0x8b]), u32(bytes), body, Buffer.from([0x75, 0x2e])]);
}

// ---- SQLite exports (an nsys export is anyone's SQLite file)

/**
 * The seed as a database in memory, reshaped by SQL, serialized again: a data table turned into a view
 * over endless recursion (the review's 12 KB export), StringIds rebuilt without its key (every name
 * lookup a scan), a table's rows repeated (output grows with input: it must stay linear), or odd values
 * (text, reals, NULLs and integers past 2^53 in the columns the importer reads as times and keys). A
 * seed SQLite cannot open comes back as it was.
 */
function reshapeSqlite(input: Buffer, m: 'table-as-view' | 'unkeyed-strings' | 'repeat-rows' | 'odd-values', r: () => number, k: number): Buffer {
  let db: Database.Database;
  try {
    db = new Database(input);
  } catch {
    return input;
  }
  try {
    // Exports declare foreign keys to StringIds, which better-sqlite3 enforces by default.
    db.pragma('foreign_keys = OFF');
    const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]).filter((t) => db.prepare(`SELECT 1 FROM ${q(t)} LIMIT 1`).get());
    const data = tables.filter((t) => /^(CUPTI_ACTIVITY_KIND_|NVTX_EVENTS|CUDA_GPU_MEMORY)/.test(t));
    const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(r() * xs.length)];
    const t = pick(data.length ? data : tables);
    if (!t) return input;
    const info = db.prepare(`PRAGMA table_info(${q(t)})`).all() as { name: string; type: string; pk: number }[];
    const cols = info.map((c) => c.name);
    if (m === 'table-as-view') {
      const select = cols.map((c) => `x AS ${q(c)}`).join(', ');
      db.exec(`DROP TABLE ${q(t)}; CREATE VIEW ${q(t)} AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT ${select} FROM c`);
    } else if (m === 'unkeyed-strings') {
      if (!tables.includes('StringIds')) return input;
      db.exec('CREATE TABLE qs_s AS SELECT * FROM StringIds; DROP TABLE StringIds; ALTER TABLE qs_s RENAME TO StringIds');
    } else if (m === 'repeat-rows') {
      const times = Math.max(2, Math.round((2 + Math.floor(r() * 30)) * k));
      // An INTEGER PRIMARY KEY is the rowid: the copies get new ones (other keys may refuse copies: then the seed comes back).
      const key = info.filter((c) => c.pk > 0);
      const kept = key.length === 1 && /^integer$/i.test(key[0].type) ? cols.filter((c) => c !== key[0].name) : cols;
      const list = kept.map(q).join(', ');
      db.exec(`INSERT INTO ${q(t)} (${list}) SELECT ${kept.map((c) => `t.${q(c)}`).join(', ')} FROM ${q(t)} t, (WITH RECURSIVE c(x) AS (SELECT 2 UNION ALL SELECT x + 1 FROM c WHERE x < ${times}) SELECT x FROM c)`);
    } else {
      const odd = ["'text'", '1.5e300', 'NULL', String(2n ** 53n + 1n), '-1', String(2n ** 63n - 1n), "x'00ff'"];
      for (const c of cols) if (r() < 0.4) db.exec(`UPDATE OR IGNORE ${q(t)} SET ${q(c)} = ${pick(odd)} WHERE rowid % 3 = ${Math.floor(r() * 3)}`);
    }
    return db.serialize();
  } catch {
    return input;
  } finally {
    db.close();
  }
}
