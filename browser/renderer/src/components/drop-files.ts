// Collects what the user dropped or picked: files and whole folders (walked through the entries API),
// each with its path relative to what was dropped, as the bundle opener expects.
import type { DroppedFile } from '../../../../common/contract/api';

function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  // readEntries answers in chunks (100 in Chromium) until it answers an empty list.
  return new Promise((resolve, reject) => {
    const out: FileSystemEntry[] = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (!batch.length) resolve(out);
        else {
          out.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry: FileSystemEntry, out: DroppedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ relative_path: entry.fullPath.replace(/^\/+/, ''), blob: file });
  } else if (entry.isDirectory) {
    for (const child of await readAll((entry as FileSystemDirectoryEntry).createReader())) await walk(child, out);
  }
}

export async function filesFromDataTransfer(dt: DataTransfer): Promise<DroppedFile[]> {
  const entries: FileSystemEntry[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.();
    if (entry) entries.push(entry);
  }
  if (!entries.length) return filesFromList(dt.files);
  const out: DroppedFile[] = [];
  for (const e of entries) await walk(e, out);
  return out;
}

/** From an <input type=file> (with or without webkitdirectory). */
export function filesFromList(list: FileList | null): DroppedFile[] {
  return Array.from(list ?? []).map((f) => ({ relative_path: f.webkitRelativePath || f.name, blob: f }));
}

export function hasFiles(dt: DataTransfer | null): boolean {
  return !!dt && Array.from(dt.types).includes('Files');
}
