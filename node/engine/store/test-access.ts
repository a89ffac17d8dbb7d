// The store's connections, for tests only: what landed in which table, which pragmas the writer holds.
// Product code reaches SQLite through the store's methods alone (`db` and the writer are private);
// scripts/layers.ts refuses this module to every layer but the store itself.
import type { Db } from './db';

export interface StoreConnections {
  /** The read connection (reads, annotations, diagnoses). */
  read: Db;
  /** The import writer (opened on first use). */
  writer(): Db;
}

const connections = new WeakMap<object, StoreConnections>();

/** Called by the Store's constructor. */
export function registerConnections(store: object, c: StoreConnections): void {
  connections.set(store, c);
}

export function connectionsOf(store: object): StoreConnections {
  const c = connections.get(store);
  if (!c) throw new Error('test-access: not a Store');
  return c;
}
