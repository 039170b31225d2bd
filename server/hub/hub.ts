import { randomBytes, randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { statefulReconnectBufferSize } from '../../contracts/hub';
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
import { isSequenced, ReplayBuffer } from './replay';

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
  /** Stateful reconnect: the bytes of sent messages kept until the client acknowledges them (SPEC §9). */
  replayBufferBytes: number;
  /** How long a negotiated connection waits for its socket, and a dropped stateful one for its client to come back. */
  reconnectGraceMs: number;
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
  replayBufferBytes: statefulReconnectBufferSize,
  reconnectGraceMs: 30_000,
};

/** An error whose message is sent to the client as the Completion error. */
/**
 * The bus event that closes connections rather than reaching one: a user's or a session's, with the
 * reason they read. No client receives it (its audience is nobody); every hub on the bus acts on it.
 */
export const closeConnectionsEvent = 'hub.closeConnections';
/** A text frame, as a string or as its UTF-8 bytes. */
export type Frame = string | Buffer;
/** ws sends a Buffer as a binary frame unless told otherwise; every hub frame is JSON text. */
const textFrame = { binary: false };

type CloseConnections = { userId: string; sessionId?: undefined; reason: string } | { sessionId: string; userId?: undefined; reason: string };

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

/** What POST /uihub/negotiate answers (negotiate version 1 of the SignalR HTTP protocol). */
export interface Negotiation {
  connectionId: string;
  connectionToken: string;
  useStatefulReconnect: boolean;
}

class Connection {
  handshaken = false;
  lastSeen = Date.now();
  readonly groups = new Set<string>();
  /** None between a negotiate and its WebSocket, nor while a dropped stateful link waits for its client. */
  socket: WebSocket | null = null;
  /** Since when the connection has had no socket: it is forgotten after the reconnect grace period. */
  detachedAt = Date.now();
  /** Closed on purpose: never resumed. */
  ended = false;
  /** A token bucket: one token per message, refilled at maxMessagesPerSecond up to messageBurst. */
  private tokens: number;
  private refilledAt = Date.now();

  constructor(
    readonly principal: HubPrincipal,
    private readonly limits: HubLimits,
    /** The negotiated connection's secret, which the client presents as ?id= on (re)connecting. */
    readonly token: string | null = null,
    /** Set when the client negotiated stateful reconnect. */
    readonly replay: ReplayBuffer | null = null,
  ) {
    this.tokens = limits.messageBurst;
  }

  get open(): boolean {
    return this.socket !== null && this.socket.readyState === this.socket.OPEN;
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

  /**
   * Sends a text frame. An event's frame comes as the UTF-8 bytes its delivery encoded once for every
   * connection, instead of ws encoding the same text again per socket.
   */
  send(frame: Frame) {
    if (this.open) this.socket!.send(frame, textFrame);
  }

  /** Invocations and completions: kept until acknowledged when the link is stateful, sent if it is up. */
  sendSequenced(frame: Frame) {
    this.replay?.keep(frame);
    this.send(frame);
  }

  /** Sends Close, then closes the socket with a close frame: the client hears why, and the TCP link ends cleanly. */
  close(error?: string, allowReconnect?: boolean) {
    this.ended = true;
    this.send(encode({ type: MessageType.Close, ...(error ? { error } : {}), ...(allowReconnect !== undefined ? { allowReconnect } : {}) }));
    this.socket?.close(1000);
  }
}

/**
 * The server side of /uihub: speaks the SignalR JSON hub protocol over plain WebSockets, keeps
 * group membership per connection and delivers the bus's events to their audience.
 */
export class Hub {
  private readonly connections = new Set<Connection>();
  private readonly byToken = new Map<string, Connection>();
  private readonly methods = new Map<string, GroupMethod>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly bus: EventBus;
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
    this.bus = bus;
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

  /**
   * POST /uihub/negotiate: a connection that exists before its socket, named by a secret token, so
   * that a stateful one can be resumed by the same client after its socket drops. It counts toward
   * the user's connection limit from now on, and is forgotten unless a socket comes within the grace period.
   */
  negotiate(principal: HubPrincipal, statefulReconnect: boolean): Negotiation {
    const token = randomBytes(32).toString('base64url');
    const replay = statefulReconnect ? new ReplayBuffer(this.limits.replayBufferBytes) : null;
    const connection = new Connection(principal, this.limits, token, replay);
    this.connections.add(connection);
    this.byToken.set(token, connection);
    return { connectionId: randomUUID(), connectionToken: token, useStatefulReconnect: statefulReconnect };
  }

  /**
   * Refuses a socket presenting a connection token that is unknown, expired, or another session's
   * (all alike: a token is not to be probed), or one already in use on a link that cannot be resumed.
   */
  resumeError(principal: HubPrincipal, token: string): { status: 404 | 409; reason: string } | null {
    const connection = this.byToken.get(token);
    if (!connection || connection.ended || connection.principal.sessionId !== principal.sessionId) {
      return { status: 404, reason: 'No connection with that ID.' };
    }
    if (connection.socket && !connection.replay) return { status: 409, reason: 'The connection is already in use.' };
    return null;
  }

  /** Takes a socket: a new connection, a negotiated one (by its token), or a stateful one coming back. */
  accept(socket: WebSocket, principal: HubPrincipal, token?: string): void {
    const connection = token === undefined ? new Connection(principal, this.limits) : this.byToken.get(token);
    // Forgotten between the route's check and the upgrade: the client starts over.
    if (!connection) return socket.close(1008, 'No connection with that ID.');
    const previous = connection.socket;
    connection.socket = socket;
    connection.lastSeen = Date.now();
    // A client reconnecting while the server shuts down would otherwise hold the close open.
    if (this.closing) return connection.close('Server is shutting down.', true);
    // The client only comes back once it has given up on the old socket, even if the server has not noticed yet.
    previous?.terminate();
    this.connections.add(connection);
    socket.on('message', (data, isBinary) => {
      if (connection.socket === socket) this.receive(connection, data as Buffer, isBinary);
    });
    socket.on('close', (code) => this.detach(connection, socket, code));
    // ws reports a client's broken frame (invalid UTF-8, over maxPayload) here and closes the socket itself.
    socket.on('error', (error) => this.log.info({ reason: error.message, userId: principal.userId }, 'hub socket error'));
    // A stateful link picks up where it was, without a handshake: first what the client may have missed.
    if (connection.handshaken && connection.replay) for (const frame of connection.replay.replay()) connection.send(frame);
  }

  /**
   * A socket closed: a stateful link that dropped (1006, no close frame: the network, not the client)
   * waits for its client to come back. Any other connection ends, and so does one closed with a close
   * frame (the client stopped, the page went away), which would otherwise hold a place in the user's
   * connection limit for nothing.
   */
  private detach(connection: Connection, socket: WebSocket, code: number) {
    if (connection.socket !== socket) return;
    connection.socket = null;
    connection.detachedAt = Date.now();
    const dropped = code === 1006;
    if (connection.ended || !dropped || !connection.replay || !connection.handshaken) this.forget(connection);
  }

  private forget(connection: Connection) {
    connection.ended = true;
    this.connections.delete(connection);
    if (connection.token !== null) this.byToken.delete(connection.token);
  }

  private closeWhere(predicate: (c: Connection) => boolean, reason: string, allowReconnect: boolean) {
    for (const c of this.connections) {
      if (!predicate(c)) continue;
      c.close(reason, allowReconnect);
      this.forget(c);
    }
  }

  /**
   * Closes every connection of a user (logout elsewhere, disabled, password changed), on every
   * server of the bus: servers sharing a store close theirs too.
   */
  closeUser(userId: string, reason: string): void {
    this.bus.publish({ event: closeConnectionsEvent, payload: { userId, reason } satisfies CloseConnections, audience: { kind: 'users', userIds: [] } });
  }

  /** Closes the connections opened with one session (that session logged out), on every server of the bus. */
  closeSession(sessionId: string, reason: string): void {
    this.bus.publish({ event: closeConnectionsEvent, payload: { sessionId, reason } satisfies CloseConnections, audience: { kind: 'users', userIds: [] } });
  }

  /** Server shutdown: clients may reconnect to the next server. */
  close(): void {
    this.closing = true;
    clearInterval(this.timer);
    this.unsubscribe();
    this.closeWhere(() => true, 'Server is shutting down.', true);
  }

  /** Who is connected (past the handshake), one entry per connection: per-receiver events are computed for them. */
  principals(): HubPrincipal[] {
    return [...this.connections].filter((c) => c.handshaken).map((c) => c.principal);
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
        if (!connection.open) return;
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
    connection.socket?.close(1002);
  }

  private handshake(connection: Connection, record: string) {
    const refusal = checkHandshake(record, connection.replay ? 2 : 1);
    if (refusal) throw new ProtocolError(refusal);
    connection.handshaken = true;
    connection.send('{}' + recordSeparator);
  }

  private dispatch(connection: Connection, record: string) {
    const message = parseClientMessage(record);
    const { replay } = connection;
    if (replay && isSequenced(message.type)) {
      // A message resent after a reconnect that was already acted on is only acknowledged again.
      const fresh = replay.receive();
      connection.send(replay.ackFrame());
      if (!fresh) return;
    }
    switch (message.type) {
      case MessageType.Invocation:
        this.invoke(connection, message).catch((error: unknown) => this.log.warn({ err: error, target: message.target }, 'hub method failed'));
        return;
      case MessageType.StreamInvocation:
        connection.sendSequenced(encode({ type: MessageType.Completion, invocationId: message.invocationId, error: 'Streaming hub methods are not supported.' }));
        return;
      case MessageType.Close:
        connection.ended = true;
        connection.socket?.close(1000);
        return;
      case MessageType.Ack:
        replay?.acknowledge(message.sequenceId);
        return;
      case MessageType.Sequence:
        replay?.restartReceiving(message.sequenceId);
        return;
      default:
        // Ping only refreshes lastSeen; Cancel and StreamItem have nothing to act on, nor Ack and Sequence on a link without stateful reconnect.
        return;
    }
  }

  private async invoke(connection: Connection, message: InvocationMessage) {
    const reply = (outcome: { result?: unknown } | { error: string }) => {
      if (message.invocationId !== undefined) {
        connection.sendSequenced(encode({ type: MessageType.Completion, invocationId: message.invocationId, ...outcome }));
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
    if (event.event === closeConnectionsEvent) {
      const { userId, sessionId, reason } = event.payload as CloseConnections;
      this.closeWhere((c) => (userId !== undefined ? c.principal.userId === userId : c.principal.sessionId === sessionId), reason, false);
      return;
    }
    // Serialized and encoded once per event for admins and once for everyone else (paths hidden).
    let adminFrame: Buffer | undefined;
    let regularFrame: Buffer | undefined;
    const invocation = (payload: unknown) => Buffer.from(encode({ type: MessageType.Invocation, target: event.event, arguments: [payload] }));
    const frameFor = (admin: boolean) =>
      admin ? (adminFrame ??= invocation(event.payload)) : (regularFrame ??= invocation(this.forRegularUser(event.payload)));
    const reaches = audienceTest(event.audience);
    for (const connection of this.connections) {
      if (!connection.handshaken || !reaches(connection)) continue;
      if (connection.socket && connection.socket.bufferedAmount > this.limits.maxBufferedBytes) {
        connection.close('The connection is too slow to keep up with events.', true);
        this.forget(connection);
        continue;
      }
      // A dropped stateful link keeps the event for its client's return.
      connection.sendSequenced(frameFor(connection.principal.role === 'admin'));
    }
  }

  private keepAlive() {
    const now = Date.now();
    const ping = encode({ type: MessageType.Ping });
    for (const connection of this.connections) {
      if (!connection.socket) {
        if (now - connection.detachedAt > this.limits.reconnectGraceMs) this.forget(connection);
      } else if (now - connection.lastSeen > this.limits.clientTimeoutMs) {
        // A graceful close: ws sends the close frame after the Close message and ends the TCP link
        // once the client answers (or after its own close timeout for a client that never does).
        connection.close('Client timeout elapsed without receiving a message from the client.', true);
        this.forget(connection);
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
