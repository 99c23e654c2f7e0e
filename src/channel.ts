import type { IncomingMessage as HttpRequest, ServerResponse } from "node:http";
import type { ReopenedMessage } from "./bridge/ports.ts";

/** An endpoint a channel serves on the shared HTTP server (Slack events, Telegram webhook). */
export interface HttpRoute {
  method: "GET" | "POST";
  path: string;
  handler: (request: HttpRequest, response: ServerResponse) => void | Promise<void>;
}

/**
 * A chat platform connection as main.ts runs it. The adapter owns everything platform
 * specific; the process only starts it, stops it and asks whether it is healthy.
 */
export interface Channel {
  /** "slack", "telegram", "console": for logs, metrics and /healthz. */
  readonly name: string;
  /** Endpoints to mount on the shared HTTP server before `start`. */
  readonly routes: readonly HttpRoute[];
  /** Connects (learns the bot's identity, opens the socket, starts polling, sets the webhook). */
  start(): Promise<void>;
  /** Stops taking new deliveries; answers already running are the bridge's to finish. */
  stop(): Promise<void>;
  /** Why the channel cannot serve right now, or undefined while it can. */
  unhealthyReason(): string | undefined;
  /**
   * For a channel that ends of itself (the console, when its input ends or the person quits):
   * resolves once it has, its last answer complete, and the process then ends. A platform
   * channel runs until it is stopped and has none.
   */
  readonly done?: Promise<void>;
  /**
   * Rebuilds a surface and a message ref from what ReplySurface.persistRef saved in an earlier
   * process, so an answer that process left mid-stream can be finished. Undefined when the
   * saved value is not this channel's (or from an older shape it no longer reads).
   */
  reopen?(saved: unknown): ReopenedMessage | undefined;
}
