// The store's own connections, for tests that look at tables directly (what landed, in which rows) or at
// the writer's state. Product code never does: SQL lives in node/engine/store/ and the store's
// connections are private (node/engine/store/test-access.ts, refused to every layer by scripts/layers.ts).
import type { Db } from '../../node/engine/store/db';
import type { Store } from '../../node/engine/store/store';
import { connectionsOf } from '../../node/engine/store/test-access';

/** The store's read connection. */
export function storeSql(store: Store): Db {
  return connectionsOf(store).read;
}

/** The store's import writer (opened on first use). */
export function storeWriter(store: Store): Db {
  return connectionsOf(store).writer();
}
