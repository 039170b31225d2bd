// One event bus: domain code publishes an event once; the hub delivers it to its audience.
// In-process here; a PostgreSQL LISTEN/NOTIFY bus can implement the same interface so that
// several server processes deliver each other's events.

/** Who receives an event: everybody signed in, some users, admins, or the members of a hub group. */
export type Audience =
  | { kind: 'all' }
  | { kind: 'users'; userIds: string[] }
  | { kind: 'admins' }
  | { kind: 'group'; group: string }
  /** Members of any of these hub groups who are admins or among `userIds` (an instance's group members). */
  | { kind: 'scoped'; groups: string[]; userIds: string[] };

export interface HubEvent {
  event: string;
  payload: unknown;
  audience: Audience;
}

export type BusListener = (event: HubEvent) => void;

export interface EventBus {
  publish(event: HubEvent): void;
  subscribe(listener: BusListener): () => void;
}

export class InProcessBus implements EventBus {
  private readonly listeners = new Set<BusListener>();

  publish(event: HubEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
