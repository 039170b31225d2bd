import type { StoreServer } from './storeServer';

/** Global teardown of the server-postgres project: the pass's PostgreSQL server stops and its folder goes. */
export default async function teardown(): Promise<void> {
  (globalThis as { wardenStoreServer?: StoreServer }).wardenStoreServer?.stop();
}
