import type { WebSocket } from 'ws';
import type { Role } from '../../contracts/roles';
import type { Audience, EventBus, HubEvent } from './bus';
import {
  checkHandshake,
  encode,
  MessageType,
  parseClientMessage,
  ProtocolError,
  recordSeparator,
  splitRecords,
  type InvocationMessage,
} from './protocol';

export interface HubPrincipal {
  userId: string;
  role: Role;
  sessionId: string;
}

export interface HubLimits {
  /** Largest text frame accepted, in bytes; ws itself drops frames over twice this (route.ts). */
  maxMessageBytes: number;
  /** Messages a connection may send per second, sustained… */
  maxMessagesPerSecond: number;
  /** …and at once after a quiet spell (a page joining its groups). */
  messageBurst: number;
  maxGroupsPerConnection: number;
  maxConnectionsPerUser: number;
  /** The server pings at least this often (the client gives up after its 30 s server timeout). */
  pingIntervalMs: number;
  /** A client silent for this long is closed. */
  clientTimeoutMs: number;
  /** A connection whose unsent data grows past this is too slow to keep. */
  maxBufferedBytes: number;
}

/** Every hub limit, in one place. */
export const defaultHubLimits: HubLimits = {
  maxMessageBytes: 64 * 1024,
  maxMessagesPerSecond: 50,
  messageBurst: 20,
  maxGroupsPerConnection: 64,
  maxConnectionsPerUser: 16,
  pingIntervalMs: 15_000,
  clientTimeoutMs: 30_000,
  maxBufferedBytes: 8 * 1024 * 1024,
};

/** An error whose message is sent to the client as the Completion error. */
export class HubError extends Error {}

/** A hub method the browser may invoke. It answers a group name to join or leave, or throws HubError. */
export interface GroupMethod {
  /** Join{Name} and Leave{Name} share the name. */
  name: string;
  resolveGroup(principal: HubPrincipal, args: unknown[]): Promise<string> | string;
}

export interface HubLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

class Connection {
  handshaken = false;
  lastSeen = Date.now();
  readonly groups = new Set<string>();
  /** A token bucket: one token per message, refilled at maxMessagesPerSecond up to messageBurst. */
  private tokens: number;
  private refilledAt = Date.now();

  constructor(
    readonly socket: WebSocket,
    readonly principal: HubPrincipal,
    private readonly limits: HubLimits,
  ) {
    this.tokens = limits.messageBurst;
  }

  /** Takes a token for one message; false when the client sends faster than allowed. */
  takeMessageToken(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.limits.messageBurst, this.tokens + ((now - this.refilledAt) / 1000) * this.limits.maxMessagesPerSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  send(frame: string) {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(frame);
  }

  close(error?: string, allowReconnect?: boolean) {
    this.send(encode({ type: MessageType.Close, ...(error ? { error } : {}), ...(allowReconnect !== undefined ? { allowReconnect } : {}) }));
    this.socket.close(1000);
  }
}

/**
 * The server side of /uihub: speaks the SignalR JSON hub protocol over plain WebSockets, keeps
 * group membership per connection and delivers the bus's events to their audience.
 */
export class Hub {
  private readonly connections = new Set<Connection>();
  private readonly methods = new Map<string, GroupMethod>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private closing = false;

  constructor(
    bus: EventBus,
    methods: GroupMethod[],
    private readonly log: HubLogger,
    readonly limits: HubLimits = defaultHubLimits,
    /** What a regular user's connection receives of a payload (server paths hidden); admins get it whole. */
    private readonly forRegularUser: (payload: unknown) => unknown = (payload) => payload,
  ) {
    for (const method of methods) this.methods.set(method.name, method);
    this.unsubscribe = bus.subscribe((event) => this.deliver(event));
    this.timer = setInterval(() => this.keepAlive(), Math.min(limits.pingIntervalMs, limits.clientTimeoutMs / 2));
    this.timer.unref();
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Refuses a new connection when the user already holds the most allowed; answers the reason. */
  admissionError(principal: HubPrincipal): string | null {
    const held = [...this.connections].filter((c) => c.principal.userId === principal.userId).length;
    return held >= this.limits.maxConnectionsPerUser
      ? `Too many connections: at most ${this.limits.maxConnectionsPerUser} per user.`
      : null;
  }

  accept(socket: WebSocket, principal: HubPrincipal): void {
    const connection = new Connection(socket, principal, this.limits);
    // A client reconnecting while the server shuts down would otherwise hold the close open.
    if (this.closing) return connection.close('Server is shutting down.', true);
    this.connections.add(connection);
    socket.on('message', (data, isBinary) => this.receive(connection, data as Buffer, isBinary));
    socket.on('close', () => this.connections.delete(connection));
    // ws reports a client's broken frame (invalid UTF-8, over maxPayload) here and closes the socket itself.
    socket.on('error', (error) => this.log.info({ reason: error.message, userId: principal.userId }, 'hub socket error'));
  }

  /** Closes every connection of a user (logout elsewhere, disabled, password changed). */
  closeUser(userId: string, reason: string): void {
    for (const c of this.connections) if (c.principal.userId === userId) c.close(reason, false);
  }

  /** Closes the connections opened with one session (that session logged out). */
  closeSession(sessionId: string, reason: string): void {
    for (const c of this.connections) if (c.principal.sessionId === sessionId) c.close(reason, false);
  }

  /** Server shutdown: clients may reconnect to the next server. */
  close(): void {
    this.closing = true;
    clearInterval(this.timer);
    this.unsubscribe();
    for (const c of this.connections) c.close('Server is shutting down.', true);
    this.connections.clear();
  }

  groupsOf(userId: string): string[][] {
    return [...this.connections].filter((c) => c.principal.userId === userId).map((c) => [...c.groups]);
  }

  /**
   * Every frame a client sends ends here, and nothing it holds may escape as an exception
   * (DESIGN §11): bad input gets a Close with the reason (before the handshake, {"error"}).
   */
  private receive(connection: Connection, data: Buffer, isBinary: boolean) {
    connection.lastSeen = Date.now();
    try {
      if (isBinary) throw new ProtocolError('Binary frames are not supported by the json protocol.');
      if (data.length > this.limits.maxMessageBytes) {
        throw new ProtocolError(`Message is too large: at most ${this.limits.maxMessageBytes} bytes.`);
      }
      for (const record of splitRecords(data.toString('utf8'))) {
        // A Close from the client ends the connection: the rest of its frame is not read.
        if (connection.socket.readyState !== connection.socket.OPEN) return;
        if (!connection.takeMessageToken()) {
          throw new ProtocolError(`Too many messages: at most ${this.limits.maxMessagesPerSecond} per second.`);
        }
        if (connection.handshaken) this.dispatch(connection, record);
        else this.handshake(connection, record);
      }
    } catch (error) {
      if (error instanceof ProtocolError) {
        this.log.info({ userId: connection.principal.userId, reason: error.message }, 'hub protocol error');
        this.refuse(connection, error.message);
      } else {
        // A bug of ours, not the client's: logged in full, the client only hears that it failed.
        this.log.warn({ err: error, userId: connection.principal.userId }, 'hub message failed');
        this.refuse(connection, 'An unexpected error occurred on the server.');
      }
    }
  }

  private refuse(connection: Connection, reason: string) {
    if (connection.handshaken) return connection.close(reason, false);
    connection.send(JSON.stringify({ error: reason }) + recordSeparator);
    connection.socket.close(1002);
  }

  private handshake(connection: Connection, record: string) {
    const refusal = checkHandshake(record);
    if (refusal) throw new ProtocolError(refusal);
    connection.handshaken = true;
    connection.send('{}' + recordSeparator);
  }

  private dispatch(connection: Connection, record: string) {
    const message = parseClientMessage(record);
    switch (message.type) {
      case MessageType.Invocation:
        this.invoke(connection, message).catch((error: unknown) => this.log.warn({ err: error, target: message.target }, 'hub method failed'));
        return;
      case MessageType.StreamInvocation:
        connection.send(encode({ type: MessageType.Completion, invocationId: message.invocationId, error: 'Streaming hub methods are not supported.' }));
        return;
      case MessageType.Close:
        connection.socket.close(1000);
        return;
      default:
        // Ping only refreshes lastSeen; Cancel, Ack, Sequence and StreamItem have nothing to act on.
        return;
    }
  }

  private async invoke(connection: Connection, message: InvocationMessage) {
    const reply = (outcome: { result?: unknown } | { error: string }) => {
      if (message.invocationId !== undefined) {
        connection.send(encode({ type: MessageType.Completion, invocationId: message.invocationId, ...outcome }));
      }
    };
    const match = /^(Join|Leave)(.+)$/.exec(message.target);
    const method = match ? this.methods.get(match[2]) : undefined;
    if (!match || !method) return reply({ error: `Unknown hub method '${message.target}'` });
    try {
      const group = await method.resolveGroup(connection.principal, message.arguments);
      if (match[1] === 'Join') {
        if (!connection.groups.has(group) && connection.groups.size >= this.limits.maxGroupsPerConnection) {
          throw new HubError(`Too many groups: at most ${this.limits.maxGroupsPerConnection} per connection.`);
        }
        connection.groups.add(group);
      } else {
        connection.groups.delete(group);
      }
      reply({ result: null });
    } catch (error) {
      if (error instanceof HubError) return reply({ error: error.message });
      this.log.warn({ err: error, target: message.target }, 'hub method failed');
      reply({ error: `An unexpected error occurred invoking '${message.target}' on the server.` });
    }
  }

  /**
   * Who may see an event is decided when it is published (the publisher reads the instance's group
   * members from the store once per event), so a user removed from a group stops receiving at once
   * although their connection still holds the hub groups it joined. Per connection this costs a
   * Set lookup, whatever the number of connections or members.
   */
  private deliver(event: HubEvent) {
    const frames = new Map<boolean, string>();
    const frameFor = (admin: boolean) => {
      let frame = frames.get(admin);
      if (frame === undefined) {
        const payload = admin ? event.payload : this.forRegularUser(event.payload);
        frame = encode({ type: MessageType.Invocation, target: event.event, arguments: [payload] });
        frames.set(admin, frame);
      }
      return frame;
    };
    const reaches = audienceTest(event.audience);
    for (const connection of this.connections) {
      if (!connection.handshaken || !reaches(connection)) continue;
      if (connection.socket.bufferedAmount > this.limits.maxBufferedBytes) {
        connection.close('The connection is too slow to keep up with events.', true);
        continue;
      }
      connection.send(frameFor(connection.principal.role === 'admin'));
    }
  }

  private keepAlive() {
    const now = Date.now();
    const ping = encode({ type: MessageType.Ping });
    for (const connection of this.connections) {
      if (now - connection.lastSeen > this.limits.clientTimeoutMs) {
        connection.close('Client timeout elapsed without receiving a message from the client.', true);
        connection.socket.terminate();
        this.connections.delete(connection);
      } else if (connection.handshaken) {
        connection.send(ping);
      }
    }
  }
}

/** The test one event's audience puts to each connection, its user ids made a Set once. */
function audienceTest(audience: Audience): (connection: Connection) => boolean {
  const isAdmin = (connection: Connection) => connection.principal.role === 'admin';
  switch (audience.kind) {
    case 'all':
      return () => true;
    case 'admins':
      return isAdmin;
    case 'users': {
      const userIds = new Set(audience.userIds);
      return (connection) => userIds.has(connection.principal.userId);
    }
    case 'group':
      return (connection) => connection.groups.has(audience.group);
    case 'scoped': {
      const userIds = new Set(audience.userIds);
      return (connection) =>
        audience.groups.some((group) => connection.groups.has(group)) && (isAdmin(connection) || userIds.has(connection.principal.userId));
    }
    case 'groupMembers': {
      const userIds = new Set(audience.userIds);
      return (connection) => connection.groups.has(audience.group) && !isAdmin(connection) && userIds.has(connection.principal.userId);
    }
  }
}
