import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type App,
  HTTPReceiver,
  type Receiver,
  type Logger as SlackLogger,
  SocketModeReceiver,
} from "@slack/bolt";
import { slackBodyGate } from "./body-gate.ts";
import { ACK_DEADLINE_MS } from "./limits.ts";

/** How deliveries reach Bolt: our HTTP route, or a Socket Mode connection. */
export interface SlackReceiver {
  readonly receiver: Receiver;
  /** HTTP mode: hands a request to Bolt (signature check, ack, dispatch). */
  readonly requestListener?: (
    request: IncomingMessage,
    response: ServerResponse,
  ) => void | Promise<void>;
  start(app: App): Promise<void>;
  stop(): Promise<void>;
  unhealthyReason(): string | undefined;
}

export interface ReceiverOptions {
  path: string;
  logger: SlackLogger;
  signingSecret?: string | undefined;
  appToken?: string | undefined;
  apiUrl?: string | undefined;
  pingTimeoutMs?: number | undefined;
}

export function createReceiver(options: ReceiverOptions): SlackReceiver {
  return options.appToken ? socketReceiver(options, options.appToken) : httpReceiver(options);
}

/**
 * Bolt's HTTP receiver without its own server: the shared HTTP server routes POST
 * /slack/events to it. It rejects a request whose signature is missing or wrong or whose
 * timestamp is more than 5 minutes off either way (401; body-gate.ts refuses one dated
 * ahead, which Bolt lets through), answers url_verification, and acknowledges an event once its
 * listener resolved: a message's listener resolves as soon as the bridge has the question in its
 * thread's line (index.ts, onMessage), so a question sent after the ack lines up behind it.
 * https://docs.slack.dev/authentication/verifying-requests-from-slack
 */
function httpReceiver(options: ReceiverOptions): SlackReceiver {
  if (!options.signingSecret) {
    throw new Error(
      "Slack over HTTP needs SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)",
    );
  }
  const receiver = new HTTPReceiver({
    signingSecret: options.signingSecret,
    endpoints: options.path,
    logger: options.logger,
    processBeforeResponse: true,
    // A listener that never acks gets a reply before Slack's deadline, not after.
    unhandledRequestTimeoutMillis: ACK_DEADLINE_MS - 500,
  });
  return {
    receiver,
    requestListener: slackBodyGate({
      signingSecret: options.signingSecret,
      logger: options.logger,
      next: receiver.requestListener,
    }),
    // The App's constructor connects it (receiver.init); the server is ours, already up.
    start: async () => undefined,
    stop: async () => undefined,
    unhealthyReason: () => undefined,
  };
}

/**
 * Socket Mode: Bolt opens `apps.connections.open`'s WebSocket and acknowledges each envelope
 * on it; the connection comes back by itself after a drop. https://docs.slack.dev/apis/events-api/using-socket-mode
 */
function socketReceiver(options: ReceiverOptions, appToken: string): SlackReceiver {
  // At start the client logs each failure to connect as an error and then throws it; the
  // start reports it once (a retry warning, or the line that stops the process).
  let starting = false;
  const logger: SlackLogger = {
    ...options.logger,
    error: (...parts) =>
      starting ? options.logger.debug(...parts) : options.logger.error(...parts),
  };
  const receiver = new SocketModeReceiver({
    appToken,
    logger,
    autoReconnectEnabled: true,
    ...(options.pingTimeoutMs
      ? { clientPingTimeout: options.pingTimeoutMs, serverPingTimeout: options.pingTimeoutMs * 6 }
      : {}),
    installerOptions: {
      clientOptions: options.apiUrl ? { slackApiUrl: options.apiUrl } : {},
    },
  });
  let connected = false;
  receiver.client.on("connected", () => {
    connected = true;
  });
  // "close": the WebSocket went away (a reconnect follows); the others are the client's states.
  for (const down of ["close", "disconnected", "reconnecting"]) {
    receiver.client.on(down, () => {
      connected = false;
    });
  }
  return {
    receiver,
    start: async (app) => {
      starting = true;
      try {
        await app.start();
      } finally {
        starting = false;
      }
      connected = true;
      // After the first connection, the client reconnects on its own by calling start() again
      // and dropping the promise; a stop() during such a reconnect rejects it, and an
      // unhandled rejection would end the process. Failures there are only logged.
      const client = receiver.client;
      const start = client.start.bind(client);
      client.start = () =>
        start().catch((error: unknown) => {
          options.logger.debug("Socket Mode reconnect ended:", error);
          return { ok: false };
        });
    },
    stop: async () => {
      await receiver.stop();
      connected = false;
    },
    unhealthyReason: () => (connected ? undefined : "Slack Socket Mode connection is down"),
  };
}
