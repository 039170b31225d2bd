// One event bus: domain code publishes an event once; the hub delivers it to its audience.
// In-process here; a PostgreSQL LISTEN/NOTIFY bus can implement the same interface so that
// several server processes deliver each other's events.

/** Who receives an event: everybody signed in, some users, admins, or the members of a hub group. */
export type Audience =
  | { kind: 'all' }
  | { kind: 'users'; userIds: string[] }
  | { kind: 'admins' }
  /** Everybody in a hub group: only for events any signed-in user may see (never an instance's or a group's). */
  | { kind: 'group'; group: string }
  /**
   * Members of any of these hub groups who are admins or among `userIds` (an instance's group
   * members), read by the publisher for each event: joining a hub group is checked once, this always.
   */
  | { kind: 'scoped'; groups: string[]; userIds: string[] }
  /** Regular users among `userIds` who joined this hub group (admins get an event of their own). */
  | { kind: 'groupMembers'; group: string; userIds: string[] };

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
