import type { Clock } from './clock';
import type { Config } from './config';
import type { Db } from './db/schema';
import type { EventBus } from './hub/bus';
import type { Hub } from './hub/hub';
import type { InstanceService } from './instances/instanceService';
import type { LogService } from './logs/logService';

/** What services need from the running process; built once by buildApp and handed to route modules. */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  /** Domain code publishes events here once; the hub delivers them. */
  bus: EventBus;
  /** The live connections, for closing a user's or a session's when they lose access. */
  hub: Pick<Hub, 'closeUser' | 'closeSession' | 'connectionCount'>;
  /** The log store's writer: control-plane entries and engine log tailing. */
  logs: LogService;
  instances: InstanceService;
}
