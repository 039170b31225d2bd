// Stateful reconnect (the SignalR protocol's Ack and Sequence messages) for one connection: the
// messages it sent that the client has not acknowledged, and the numbering of the client's own
// messages so that what the client resends after a reconnect is not acted on twice.

import type { Frame } from './hub';
import { encode, MessageType, ProtocolError } from './protocol';

/** The message types both sides number and keep until acknowledged; Ping, Close, Ack and Sequence are not. */
const sequencedTypes = new Set<number>([
  MessageType.Invocation,
  MessageType.StreamItem,
  MessageType.Completion,
  MessageType.StreamInvocation,
  MessageType.CancelInvocation,
]);

export const isSequenced = (type: number) => sequencedTypes.has(type);

export class ReplayBuffer {
  private kept: { id: number; frame: Frame }[] = [];
  private keptBytes = 0;
  /** The id the next message sent carries: ids start at 1 on both sides. */
  private nextSendId = 1;
  /** The id the next message received carries, and the last one acted on. */
  private nextReceiveId = 1;
  private receivedThroughId = 0;

  constructor(private readonly maxBytes: number) {}

  /**
   * Keeps a frame until the client acknowledges it. Past the size limit the oldest go: if the link
   * then drops, the client sees the gap in the Sequence it is sent and starts over with a new
   * connection (refetching what it shows), instead of silently missing events.
   */
  keep(frame: Frame): void {
    this.kept.push({ id: this.nextSendId++, frame });
    this.keptBytes += frame.length;
    while (this.keptBytes > this.maxBytes && this.kept.length > 0) this.keptBytes -= this.kept.shift()!.frame.length;
  }

  /** The client has received every message up to `sequenceId`. */
  acknowledge(sequenceId: number): void {
    while (this.kept.length > 0 && this.kept[0].id <= sequenceId) this.keptBytes -= this.kept.shift()!.frame.length;
  }

  get keptCount(): number {
    return this.kept.length;
  }

  /** What a reconnected socket is sent first: a Sequence naming the first kept message, then every kept one. */
  replay(): Frame[] {
    const first = this.kept[0]?.id ?? this.nextSendId;
    return [encode({ type: MessageType.Sequence, sequenceId: first }), ...this.kept.map((m) => m.frame)];
  }

  /** The client's Sequence after a reconnect: its next message carries this id. */
  restartReceiving(sequenceId: number): void {
    // A client cannot resend from past what it ever sent: a gap would lose its messages.
    if (sequenceId > this.receivedThroughId + 1) {
      throw new ProtocolError(`Sequence ${sequenceId} is past the last message received (${this.receivedThroughId}).`);
    }
    this.nextReceiveId = sequenceId;
  }

  /** Numbers a message received; false for one already acted on (resent after a reconnect). */
  receive(): boolean {
    const id = this.nextReceiveId++;
    if (id <= this.receivedThroughId) return false;
    this.receivedThroughId = id;
    return true;
  }

  /** The Ack telling the client which of its messages the server has. */
  ackFrame(): string {
    return encode({ type: MessageType.Ack, sequenceId: this.receivedThroughId });
  }
}
