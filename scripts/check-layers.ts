// `npm run lint`'s layering check: refuses every import the allow-list in scripts/layers.ts does not
// allow, and every known exception that no longer excuses anything.
import { fileURLToPath } from 'node:url';
import { checkTree, KNOWN_EXCEPTIONS, staleExceptions } from './layers';

const root = fileURLToPath(new URL('..', import.meta.url));
const violations = checkTree(root);
const stale = staleExceptions(root);
for (const v of violations) console.error(v.message);
for (const e of stale) console.error(`scripts/layers.ts: the known exception ${e.file} → ${e.imports} excuses nothing any more: remove it`);
if (violations.length || stale.length) {
  console.error(`layering: ${violations.length} refused import(s), ${stale.length} stale exception(s) (allow-list: scripts/layers.ts)`);
  process.exit(1);
}
console.log(`layering: ok (${KNOWN_EXCEPTIONS.length} known exceptions, listed in scripts/layers.ts)`);
