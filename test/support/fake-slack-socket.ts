import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/**
 * The WebSocket side of a fake Socket Mode server, on the fake Slack's own HTTP server: a
 * minimal RFC 6455 endpoint (text frames, ping/pong, close) that says hello, sends envelopes
 * and collects their acks, as Slack does. https://docs.slack.dev/apis/events-api/using-socket-mode
 */
export class FakeSocketServer {
  readonly #sockets = new Set<Duplex>();
  readonly #acks = new Map<string, (payload: unknown) => void>();
  readonly #connected: (() => void)[] = [];
  #refusing = false;
  /** Envelopes sent, with when they were acknowledged (performance.now()). */
  readonly sent: { envelopeId: string; type: string; at: number; ackedAt?: number }[] = [];

  get connections(): number {
    return this.#sockets.size;
  }

  /** Resolves once a client is connected (now, or when one connects). */
  connected(): Promise<void> {
    if (this.#sockets.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.#connected.push(resolve));
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex): void {
    const key = request.headers["sec-websocket-key"];
    if (typeof key !== "string" || this.#refusing) {
      socket.destroy();
      return;
    }
    const accept = createHash("sha1")
      .update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      [
        "HTTP/1.1 101 Switching Protocols",
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Accept: ${accept}`,
        "",
        "",
      ].join("\r\n"),
    );
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let buffer = Buffer.alloc(0);
    socket.on("data", (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      for (;;) {
        const frame = readFrame(buffer);
        if (!frame) break;
        buffer = buffer.subarray(frame.length);
        this.#onFrame(socket, frame.opcode, frame.payload);
      }
    });
    this.#send(socket, {
      type: "hello",
      num_connections: this.#sockets.size,
      debug_info: { host: "fake-slack", approximate_connection_time: 3600 },
      connection_info: { app_id: "A0FAKE" },
    });
    for (const resolve of this.#connected.splice(0)) resolve();
  }

  /**
   * Sends an envelope (`events_api`, `slash_commands`) to the connected client and resolves
   * with the ack's payload once the client acknowledges it.
   */
  deliver(
    type: "events_api" | "slash_commands" | "interactive",
    payload: unknown,
    options: { retryAttempt?: number; envelopeId?: string } = {},
  ): Promise<unknown> {
    const socket = [...this.#sockets][0];
    if (!socket) return Promise.reject(new Error("no Socket Mode client connected"));
    const envelopeId = options.envelopeId ?? randomUUID();
    const record: (typeof this.sent)[number] = { envelopeId, type, at: performance.now() };
    this.sent.push(record);
    const acked = new Promise<unknown>((resolve) => {
      this.#acks.set(envelopeId, (ack) => {
        record.ackedAt = performance.now();
        resolve(ack);
      });
    });
    this.#send(socket, {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: type !== "events_api",
      retry_attempt: options.retryAttempt ?? 0,
      retry_reason: options.retryAttempt ? "timeout" : "",
    });
    return acked;
  }

  /**
   * Drops every connection and refuses new ones until `accept()`: a Socket Mode link lost on
   * Slack's side, the client's reconnects failing meanwhile.
   */
  drop(): void {
    this.#refusing = true;
    this.close();
  }

  accept(): void {
    this.#refusing = false;
  }

  close(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  #onFrame(socket: Duplex, opcode: number, payload: Buffer): void {
    if (opcode === 0x9) socket.write(frame(0xa, payload));
    else if (opcode === 0x8) {
      socket.write(frame(0x8, payload.subarray(0, 2)));
      socket.end();
    } else if (opcode === 0x1) {
      const message = JSON.parse(payload.toString("utf8")) as {
        envelope_id?: string;
        payload?: unknown;
      };
      if (message.envelope_id) {
        this.#acks.get(message.envelope_id)?.(message.payload);
        this.#acks.delete(message.envelope_id);
      }
    }
  }

  #send(socket: Duplex, value: unknown): void {
    socket.write(frame(0x1, Buffer.from(JSON.stringify(value), "utf8")));
  }
}

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigLength(length)]);
  return Buffer.concat([header, payload]);
}

function bigLength(length: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(length));
  return buffer;
}

/** One complete (client, masked) frame at the start of `buffer`, or undefined until it is all there. */
function readFrame(
  buffer: Buffer,
): { opcode: number; payload: Buffer; length: number } | undefined {
  if (buffer.length < 2) return undefined;
  const opcode = (buffer[0] ?? 0) & 0x0f;
  const masked = ((buffer[1] ?? 0) & 0x80) !== 0;
  let length = (buffer[1] ?? 0) & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  const maskLength = masked ? 4 : 0;
  if (buffer.length < offset + maskLength + length) return undefined;
  const mask = buffer.subarray(offset, offset + maskLength);
  const payload = Buffer.from(buffer.subarray(offset + maskLength, offset + maskLength + length));
  if (masked)
    for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return { opcode, payload, length: offset + maskLength + length };
}
