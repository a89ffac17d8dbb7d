// The bridge (`quadscope serve`) in a process of its own for first-zoom.bench.ts: the engine runs there
// as in browser mode, and the benchmark talks to it over the WebSocket like the page does, so a call's
// time includes any wait behind other work on the engine. Prints `READY <ws url>` once listening.
//   node --import tsx test/bench/bridge-child.ts <db> <renderer dir>
import { startServer } from '../../node/bridge/server';

const [dbFile, rendererDir] = process.argv.slice(2);
const s = await startServer({ dbFile, port: 0, rendererDir });
console.log(`READY ws://127.0.0.1:${s.port}/api?token=${s.token}`);
process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
