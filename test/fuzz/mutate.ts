// Seeded mutations of real files: what a damaged or hostile bundle looks like. Each mutation keeps
// the file name, so detection sees the same name with different bytes.
import { gzipSync } from 'node:zlib';
import { rng } from '../helpers/rng';

export type Mutation = 'flip' | 'truncate' | 'huge-number' | 'deep-nesting' | 'utf16' | 'bad-utf8' | 'giant-line' | 'duplicate-chunk' | 'zero-fill' | 'gzip-truncate';

export const MUTATIONS: readonly Mutation[] = ['flip', 'truncate', 'huge-number', 'deep-nesting', 'utf16', 'bad-utf8', 'giant-line', 'duplicate-chunk', 'zero-fill', 'gzip-truncate'];

export function mutate(input: Buffer, m: Mutation, seed: number): Buffer {
  const r = rng(seed);
  const at = (n = input.length) => Math.floor(r() * Math.max(1, n));
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
      const depth = 50_000 + Math.floor(r() * 50_000);
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
      return Buffer.concat([input.subarray(0, p), Buffer.alloc(8 * 2 ** 20, 'x'), input.subarray(p)]);
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
  }
}
