// The SignalR JSON hub protocol, version 1 (DESIGN §8): framing and message shapes only, no I/O.

export const recordSeparator = '\u001e';

export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
  Ack: 8,
  Sequence: 9,
} as const;

export interface InvocationMessage {
  type: typeof MessageType.Invocation;
  invocationId?: string;
  target: string;
  arguments: unknown[];
}

export interface StreamInvocationMessage {
  type: typeof MessageType.StreamInvocation;
  invocationId: string;
  target: string;
  arguments: unknown[];
}

export type CompletionMessage =
  | { type: typeof MessageType.Completion; invocationId: string; result?: unknown }
  | { type: typeof MessageType.Completion; invocationId: string; error: string };

export type ClientMessage =
  | InvocationMessage
  | StreamInvocationMessage
  | { type: typeof MessageType.Ping }
  | { type: typeof MessageType.Close; error?: string }
  | { type: typeof MessageType.CancelInvocation | typeof MessageType.Ack | typeof MessageType.Sequence | typeof MessageType.StreamItem };

export type ServerMessage =
  | CompletionMessage
  | { type: typeof MessageType.Invocation; target: string; arguments: unknown[] }
  | { type: typeof MessageType.Ping }
  | { type: typeof MessageType.Close; error?: string; allowReconnect?: boolean };

/** Thrown for input that breaks the protocol; the connection answers with a Close carrying `message`. */
export class ProtocolError extends Error {}

/** Splits one text frame into its records. A frame must end with the separator: messages never span frames. */
export function splitRecords(frame: string): string[] {
  if (!frame.endsWith(recordSeparator)) throw new ProtocolError('Message is incomplete: a record separator is missing.');
  return frame.slice(0, -1).split(recordSeparator);
}

export function encode(message: ServerMessage | Record<string, unknown>): string {
  return JSON.stringify(message) + recordSeparator;
}

/** Parses the handshake request; answers the reason it is refused, or null when it is accepted. */
export function checkHandshake(record: string): string | null {
  let request: unknown;
  try {
    request = JSON.parse(record);
  } catch {
    return 'Handshake request is not valid JSON.';
  }
  const { protocol, version } = (request ?? {}) as { protocol?: unknown; version?: unknown };
  if (protocol !== 'json') return `The protocol '${String(protocol)}' is not supported.`;
  if (version !== 1) return `The server does not support version ${String(version)} of the 'json' protocol.`;
  return null;
}

/** Parses and shape-checks one record sent by a client. */
export function parseClientMessage(record: string): ClientMessage {
  let message: unknown;
  try {
    message = JSON.parse(record);
  } catch {
    throw new ProtocolError('Message is not valid JSON.');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new ProtocolError('Message must be a JSON object.');
  }
  const { type, invocationId, target, arguments: args } = message as Record<string, unknown>;
  switch (type) {
    case MessageType.Invocation:
    case MessageType.StreamInvocation:
      if (typeof target !== 'string' || target.length === 0) throw new ProtocolError('Invocation target must be a non-empty string.');
      if (invocationId !== undefined && typeof invocationId !== 'string') throw new ProtocolError('invocationId must be a string.');
      if (type === MessageType.StreamInvocation && invocationId === undefined) throw new ProtocolError('A stream invocation needs an invocationId.');
      if (args !== undefined && !Array.isArray(args)) throw new ProtocolError('Invocation arguments must be an array.');
      return { type, invocationId, target, arguments: (args as unknown[] | undefined) ?? [] } as ClientMessage;
    case MessageType.Ping:
    case MessageType.Close:
    case MessageType.CancelInvocation:
    case MessageType.Ack:
    case MessageType.Sequence:
    case MessageType.StreamItem:
      return message as ClientMessage;
    default:
      throw new ProtocolError(`Unknown message type '${String(type)}'.`);
  }
}
