// The store's own read connection, for tests that look at tables directly (what landed, in which rows).
// Product code never does: SQL lives in node/engine/store/ and the store's connections are private.
import type { Db } from '../../node/engine/store/db';
import type { Store } from '../../node/engine/store/store';

export function storeSql(store: Store): Db {
  return store.db;
}
