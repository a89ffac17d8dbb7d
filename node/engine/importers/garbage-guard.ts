// Decides when a file is not worth importing: a few bad lines are warned about and skipped, but a
// file whose lines are mostly unreadable fails alone. The rule, checked after every line once
// MIN_LINES non-empty lines have been seen and again at the end: more than half of the non-empty
// lines unparseable fails the file; so does a file with no parseable line at all.
import { ImportError, type ImportContext } from './types';

const MIN_LINES = 1000;
const MAX_BAD_SHARE = 0.5;

export class GarbageGuard {
  private good = 0;
  private bad = 0;

  constructor(private readonly ctx: ImportContext, private readonly what: string) {}

  ok(): void {
    this.good++;
  }

  /** Warns about one malformed line and fails the file when bad lines have become the majority. */
  malformed(line: number, why: string): void {
    this.bad++;
    this.ctx.warn(why, { line });
    const seen = this.good + this.bad;
    if (seen >= MIN_LINES && this.bad > seen * MAX_BAD_SHARE) {
      throw new ImportError(this.ctx.path, { line }, `not ${this.what}: ${this.bad} of the first ${seen} non-empty lines are unreadable`);
    }
  }

  finish(lastLine: number): void {
    const seen = this.good + this.bad;
    if (this.bad > 0 && (this.good === 0 || this.bad > seen * MAX_BAD_SHARE)) {
      throw new ImportError(this.ctx.path, { line: lastLine }, `not ${this.what}: ${this.bad} of ${seen} non-empty lines are unreadable`);
    }
  }
}
