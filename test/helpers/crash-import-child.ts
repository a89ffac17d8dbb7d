// A child process for the crash-safety test: imports the named files into a database, printing its
// progress so the parent knows when to SIGKILL it mid-transaction.
import { importPaths } from '../../node/engine/import/pipeline';
import { Store } from '../../node/engine/store/store';

const [db, ...paths] = process.argv.slice(2);
const store = new Store(db);
const result = await importPaths(store, paths, {
  onProgress: (p) => {
    if (p.state === 'running' && p.entry_bytes_done > 0) process.stdout.write(`progress ${p.entry_bytes_done}\n`);
  },
});
process.stdout.write(`done ${JSON.stringify(result)}\n`);
store.close();
