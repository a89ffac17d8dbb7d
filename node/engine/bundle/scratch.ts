// The temporary folder of one open bundle (extracted archives, spilled entries), made on first use
// under os.tmpdir() and removed whole by close().
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskGuard } from './limits';

export class Scratch {
  private root: Promise<string> | null = null;
  private count = 0;
  /** Every byte written under the scratch root passes this guard (extraction, spilled entries). */
  readonly disk: DiskGuard;

  /** `reserveBytes`: free space extraction keeps on the temp disk (0: diskReserve's share of the disk). */
  constructor(reserveBytes = 0) {
    this.disk = new DiskGuard(() => tmpdir(), undefined, reserveBytes > 0 ? () => reserveBytes : undefined);
  }

  /** A new empty folder; `hint` only makes it recognisable when someone looks in /tmp. */
  async dir(hint: string): Promise<string> {
    this.root ??= mkdtemp(join(tmpdir(), 'quadscope-bundle-'));
    const dir = join(await this.root, `${++this.count}-${hint.replace(/[^\w.-]+/g, '_').slice(-60)}`);
    await mkdir(dir);
    return dir;
  }

  async remove(): Promise<void> {
    const root = this.root;
    this.root = null;
    if (root) await rm(await root, { recursive: true, force: true });
  }
}
