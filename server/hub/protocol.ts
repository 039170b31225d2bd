// The SignalR JSON hub protocol, version 1 (DESIGN §8): framing and message shapes only, no I/O.
// Every record a client sends is checked against a schema before any field is read (DESIGN §11
// "Inputs"): a field of the wrong type must become a Close with an error, never an exception.

import { Type, type Static, type TObject } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';

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

const Target = Type.String({ minLength: 1, maxLength: 200, description: 'a non-empty string of at most 200 characters' });
const InvocationId = Type.String({ maxLength: 200, description: 'a string of at most 200 characters' });
const Arguments = Type.Array(Type.Unknown(), { description: 'an array' });
const SequenceId = Type.Integer({ minimum: 0, description: 'a non-negative integer' });

// Unknown extra properties are allowed, as in the protocol's own readers: later clients may add some.
const Invocation = Type.Object({
  type: Type.Literal(MessageType.Invocation),
  invocationId: Type.Optional(InvocationId),
  target: Target,
  arguments: Arguments,
  streamIds: Type.Optional(Type.Array(Type.String(), { description: 'an array of strings' })),
});
const StreamItem = Type.Object({ type: Type.Literal(MessageType.StreamItem), invocationId: InvocationId, item: Type.Optional(Type.Unknown()) });
const Completion = Type.Object({
  type: Type.Literal(MessageType.Completion),
  invocationId: InvocationId,
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String({ description: 'a string' })),
});
const StreamInvocation = Type.Object({
  type: Type.Literal(MessageType.StreamInvocation),
  invocationId: InvocationId,
  target: Target,
  arguments: Arguments,
  streamIds: Type.Optional(Type.Array(Type.String(), { description: 'an array of strings' })),
});
const CancelInvocation = Type.Object({ type: Type.Literal(MessageType.CancelInvocation), invocationId: InvocationId });
const Ping = Type.Object({ type: Type.Literal(MessageType.Ping) });
const Close = Type.Object({
  type: Type.Literal(MessageType.Close),
  error: Type.Optional(Type.String({ description: 'a string' })),
  allowReconnect: Type.Optional(Type.Boolean({ description: 'a boolean' })),
});
const Ack = Type.Object({ type: Type.Literal(MessageType.Ack), sequenceId: SequenceId });
const Sequence = Type.Object({ type: Type.Literal(MessageType.Sequence), sequenceId: SequenceId });

const Handshake = Type.Object({
  protocol: Type.String({ description: 'a string' }),
  version: Type.Number({ description: 'a number' }),
});

export type InvocationMessage = Static<typeof Invocation>;
export type StreamInvocationMessage = Static<typeof StreamInvocation>;

export type ClientMessage =
  | InvocationMessage
  | StreamInvocationMessage
  | Static<typeof StreamItem>
  | Static<typeof Completion>
  | Static<typeof CancelInvocation>
  | Static<typeof Ping>
  | Static<typeof Close>
  | Static<typeof Ack>
  | Static<typeof Sequence>;

export type CompletionMessage =
  | { type: typeof MessageType.Completion; invocationId: string; result?: unknown }
  | { type: typeof MessageType.Completion; invocationId: string; error: string };

export type ServerMessage =
  | CompletionMessage
  | { type: typeof MessageType.Invocation; target: string; arguments: unknown[] }
  | { type: typeof MessageType.Ping }
  | { type: typeof MessageType.Close; error?: string; allowReconnect?: boolean };

/** A compiled checker per message type, and the name its errors use ("Invocation target must be …"). */
const messageKinds = new Map<number, { name: string; schema: TObject; check: Validator }>(
  (
    [
      ['Invocation', Invocation],
      ['StreamItem', StreamItem],
      ['Completion', Completion],
      ['StreamInvocation', StreamInvocation],
      ['CancelInvocation', CancelInvocation],
      ['Ping', Ping],
      ['Close', Close],
      ['Ack', Ack],
      ['Sequence', Sequence],
    ] as const
  ).map(([name, schema]) => [schema.properties.type.const, { name, schema, check: Compile(schema) }]),
);
const handshakeCheck = Compile(Handshake);

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

/** A client's string quoted back in an error, cut short: the error must stay small. */
function quoted(value: string): string {
  return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
}

function parseObject(record: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(record);
  } catch {
    throw new ProtocolError(`${what} is not valid JSON.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtocolError(`${what} must be a JSON object.`);
  return value as Record<string, unknown>;
}

/** The first schema error as a sentence naming the field, e.g. "Invocation target must be a non-empty string…". */
function describeFirstError(name: string, schema: TObject, check: Validator, value: unknown): string {
  const [error] = check.Errors(value);
  if (!error) return `${name} is malformed.`;
  if (error.keyword === 'required') {
    const missing = (error.params as { requiredProperties?: string[] }).requiredProperties ?? [];
    return `${name} is missing ${missing.join(', ')}.`;
  }
  const field = error.instancePath.split('/')[1] ?? '';
  const description = (schema.properties[field] as { description?: string } | undefined)?.description;
  return `${name} ${field} must be ${description ?? error.message.replace(/^must be /, '')}.`;
}

/**
 * Parses the handshake request; answers the reason it is refused, or null when it is accepted.
 * Version 2 adds Ack and Sequence: only a connection that negotiated stateful reconnect speaks it.
 */
export function checkHandshake(record: string, maxVersion: 1 | 2 = 1): string | null {
  let request: Record<string, unknown>;
  try {
    request = parseObject(record, 'Handshake request');
  } catch (error) {
    return (error as ProtocolError).message;
  }
  if (!handshakeCheck.Check(request)) {
    return describeFirstError('Handshake request', Handshake, handshakeCheck, request);
  }
  const { protocol, version } = request as Static<typeof Handshake>;
  if (protocol !== 'json') return `The protocol ${quoted(protocol)} is not supported.`;
  if (!Number.isInteger(version) || version < 1 || version > maxVersion) {
    return `The server does not support version ${version} of the 'json' protocol.`;
  }
  return null;
}

/** Parses and schema-checks one record sent by a client. */
export function parseClientMessage(record: string): ClientMessage {
  const message = parseObject(record, 'Message');
  const { type } = message;
  if (typeof type !== 'number') throw new ProtocolError('Message type must be a number.');
  const kind = messageKinds.get(type);
  if (!kind) throw new ProtocolError(`Unknown message type '${type}'.`);
  if (!kind.check.Check(message)) throw new ProtocolError(describeFirstError(kind.name, kind.schema, kind.check, message));
  return message as ClientMessage;
}
