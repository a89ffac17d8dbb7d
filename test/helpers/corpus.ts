// The shared corpus of real public sample files lives beside the checkout (../shared/corpus). A fresh
// clone without it still passes: tests that need a corpus file skip with a message naming it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CORPUS_DIR = process.env.QUADSCOPE_CORPUS ?? resolve(REPO_ROOT, '..', 'shared', 'corpus');

/** The path of a corpus file, or null when the corpus (or the file) is absent. */
export function corpusFile(rel: string): string | null {
  const p = join(CORPUS_DIR, rel);
  return existsSync(p) ? p : null;
}

/** For node:test's `skip` option: false when present, else the reason. */
export function skipUnlessCorpus(...rels: string[]): string | false {
  const missing = rels.filter((r) => !corpusFile(r));
  return missing.length ? `corpus file(s) absent: ${missing.join(', ')} (looked in ${CORPUS_DIR})` : false;
}
