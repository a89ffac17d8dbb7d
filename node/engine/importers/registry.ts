// Every importer, and format detection over them: the highest-scoring importer wins an entry.
import type { FormatId } from '../../../common/contract/types';
import type { Importer } from './types';
import { METRIC_LOG_IMPORTERS } from './metrics-logs';
import { PROFILE_TRACE_IMPORTERS } from './profiles-traces';

export const IMPORTERS: readonly Importer[] = [...METRIC_LOG_IMPORTERS, ...PROFILE_TRACE_IMPORTERS];

/** Bytes of decompressed content that detection looks at. */
export const HEAD_BYTES = 64 * 1024;

export function detectImporter(head: Buffer, name: string, importers: readonly Importer[] = IMPORTERS): Importer | null {
  let best: Importer | null = null;
  let bestScore = 0;
  for (const imp of importers) {
    const score = imp.detect(head, name);
    if (score > bestScore) {
      best = imp;
      bestScore = score;
    }
  }
  return best;
}

export function importerFor(format: FormatId): Importer | undefined {
  return IMPORTERS.find((i) => i.format === format);
}
