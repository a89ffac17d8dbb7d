// Runs an entry as Electron would run it in a utility process, under plain Node: `process.parentPort`
// made from Node's IPC channel (messages arrive as { data }, as they do from Electron's port). The
// entry's own arguments follow its path.
import { pathToFileURL } from 'node:url';

const entry = process.argv[2];
process.argv.splice(2, 1);
(process as unknown as { parentPort: unknown }).parentPort = {
  on: (_event: 'message', listener: (e: { data: unknown }) => void) => process.on('message', (data) => listener({ data })),
  postMessage: (message: unknown) => process.send?.(message),
};
await import(pathToFileURL(entry).href);
