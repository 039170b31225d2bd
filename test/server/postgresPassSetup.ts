import { startStoreServer, type StoreServer } from './storeServer';

/** Global setup of the server-postgres project: one PostgreSQL server for the whole pass. */
export default async function setup(): Promise<void> {
  const server = await startStoreServer();
  process.env.WARDEN_TEST_DATABASE_URL = server.baseUrl;
  (globalThis as { wardenStoreServer?: StoreServer }).wardenStoreServer = server;
}
