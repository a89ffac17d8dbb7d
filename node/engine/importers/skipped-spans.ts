// The first span a trace importer skipped, kept for the error when none was imported: "no spans" alone
// hides why (a failed source's warnings are rolled back with it), so the error names the first skipped
// span's place and reason instead of the document's top.
import { ImportError, type Position } from './types';

type Warn = (message: string, where: Position) => void;

export class SkippedSpans {
  private count = 0;
  private first: { message: string; where: Position } | null = null;

  constructor(private readonly next: Warn) {}

  /** Passes warnings on; those ending in "skipped" are about a span left out. */
  warn: Warn = (message, where) => this.to(this.next)(message, where);

  /** The same, passing on to another function (JSON lines warn as they go, the first request's are held). */
  to(next: Warn): Warn {
    return (message, where) => {
      if (message.endsWith('skipped')) {
        this.count++;
        this.first ??= { message, where };
      }
      next(message, where);
    };
  }

  /** The error for a file with no spans: at the first skipped span when there was one. */
  none(file: string, where: Position, message: string): ImportError {
    if (!this.first) return new ImportError(file, where, message);
    const more = this.count > 1 ? `${this.count} spans skipped, the first` : 'its one span skipped';
    return new ImportError(file, this.first.where, `${message}: ${more}: ${this.first.message.replace(/, skipped$/, '')}`);
  }
}

