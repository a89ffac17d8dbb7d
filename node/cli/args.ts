// A small, strict argument parser: known flags only, so a typo is an error rather than ignored.
import { UsageError } from './errors';

export interface FlagSpec {
  [flag: string]: 'string' | 'boolean' | 'strings';
}

export interface Parsed {
  positional: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
}

export function parseArgs(argv: string[], spec: FlagSpec): Parsed {
  const positional: string[] = [];
  const flags: Parsed['flags'] = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const type = spec[name];
    if (!type) throw new UsageError(`unknown option --${name}`);
    if (type === 'boolean') {
      flags[name] = true;
      continue;
    }
    const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (type === 'strings') {
      // --scrape URL… takes every following value up to the next flag.
      const list = (flags[name] as string[] | undefined) ?? [];
      list.push(value);
      while (eq < 0 && i + 1 < argv.length && !argv[i + 1].startsWith('--')) list.push(argv[++i]);
      flags[name] = list;
    } else flags[name] = value;
  }
  return { positional, flags };
}
