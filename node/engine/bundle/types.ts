// What the bundle opener hands the import pipeline: the entries of a folder, archive or single file,
// each readable as decompressed bytes, with the limits that keep hostile archives bounded.

export interface BundleLimits {
  /** Total decompressed bytes over the whole bundle. */
  maxTotalBytes: number;
  /** One entry's decompressed bytes. */
  maxEntryBytes: number;
  /** Decompressed ÷ compressed, per entry and over an archive (zip bombs). */
  maxRatio: number;
  /** Entries over the whole bundle: in a folder, in an archive, and in all archives together (nested ones too). */
  maxEntries: number;
  /** Path depth inside an archive. */
  maxDepth: number;
  /** Free bytes extraction leaves on the temp disk; 0: 5 % of the disk, between 64 MiB and 1 GiB. */
  diskReserveBytes: number;
}

export const DEFAULT_LIMITS: BundleLimits = {
  maxTotalBytes: 64 * 2 ** 30,
  maxEntryBytes: 16 * 2 ** 30,
  maxRatio: 200,
  maxEntries: 50_000,
  maxDepth: 32,
  diskReserveBytes: 0,
};

export interface BundleEntry {
  /** Path inside the bundle, '/'-separated ("metrics/vllm.prom"); for a gzip'd file, without ".gz". */
  readonly path: string;
  /** Decompressed size where known before reading (folders, extracted archives), else null. */
  readonly size: number | null;
  /** Bytes on disk (compressed size for .gz), for progress and the sources table. */
  readonly storedBytes: number;
  readonly mtimeMs: number | null;
  /** Up to `n` decompressed bytes from the start (for format detection). */
  head(n: number): Promise<Buffer>;
  /** The whole decompressed content as a stream; errors name the entry and the byte offset. */
  stream(): AsyncIterable<Buffer>;
  /** A path to the decompressed content on disk (spilled to a temporary file when compressed). */
  file(): Promise<string>;
}

/** A path of the bundle that could not be opened or was refused (corrupt archive, traversal, bomb). */
export interface BundleFailure {
  path: string;
  error: string;
}

export interface Bundle {
  /** A display name: the folder or archive name. */
  readonly name: string;
  /** Entries in a stable order (sorted by path). */
  readonly entries: readonly BundleEntry[];
  /** Paths refused or unreadable; the rest of the bundle still imports. */
  readonly failures: readonly BundleFailure[];
  /** Removes temporary files (extracted archives, spilled entries). */
  close(): Promise<void>;
}

export class BundleError extends Error {
  constructor(readonly file: string, message: string, readonly offset?: number) {
    super(`${file}${offset !== undefined ? ` (byte ${offset})` : ''}: ${message}`);
    this.name = 'BundleError';
  }
}
