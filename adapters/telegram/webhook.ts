import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Update } from "grammy/types";
import { z } from "zod";
import type { Logger } from "../../src/log.ts";
import type { HttpRoute } from "../../src/ports.ts";
import { WEBHOOK_SECRET_HEADER } from "./limits.ts";

export const WEBHOOK_PATH = "/telegram/webhook";

// Telegram's updates are small; anything far larger is not from Telegram.
const MAX_BODY_BYTES = 1_000_000;

const updateSchema = z.looseObject({ update_id: z.number().int().nonnegative() });

export interface WebhookOptions {
  secret: string;
  log: Logger;
  /** False before start and after stop: Telegram is told to try again later (503). */
  accepting: () => boolean;
  /** True while as many updates are being handled as the process takes at once. */
  busy: () => boolean;
  /**
   * Takes an update; resolves once it is lined up (a question has its place in its thread's
   * line), never waiting for its answer.
   */
  dispatch: (update: Update) => Promise<void>;
}

/**
 * `POST /telegram/webhook`: checks the secret token Telegram sends in
 * X-Telegram-Bot-Api-Secret-Token (compared in constant time), hands the update on and answers
 * 200 once it is lined up (a moment), never waiting for its answer: a 10-second answer never
 * keeps Telegram waiting (it would re-send), and a message sent after the 200 is answered after
 * this one, on whichever process gets it.
 * https://core.telegram.org/bots/api#setwebhook
 */
export function webhookRoute(options: WebhookOptions): HttpRoute {
  const expected = digest(options.secret);
  let warnedAt = Number.NEGATIVE_INFINITY;
  // One line a minute at most: a flood must not become a flood of log lines too.
  const warnBusy = () => {
    if (performance.now() - warnedAt < 60_000) return;
    warnedAt = performance.now();
    options.log.warn("Telegram webhook busy: updates refused with 503, Telegram will re-send them");
  };
  return {
    method: "POST",
    path: WEBHOOK_PATH,
    async handler(request, response) {
      const given = request.headers[WEBHOOK_SECRET_HEADER];
      if (typeof given !== "string" || !timingSafeEqual(digest(given), expected)) {
        request.resume();
        return reply(response, 401, "unauthorized");
      }
      if (!options.accepting()) {
        request.resume();
        return reply(response, 503, "not ready");
      }
      if (options.busy()) {
        request.resume();
        warnBusy();
        return reply(response, 503, "busy");
      }
      const body = await readBody(request);
      if (body === undefined) return reply(response, 413, "too large");
      let update: Update;
      try {
        update = updateSchema.parse(JSON.parse(body)) as unknown as Update;
      } catch {
        options.log.warn("Telegram webhook: a body that is not an update was refused");
        return reply(response, 400, "not an update");
      }
      await options.dispatch(update);
      reply(response, 200, "");
    },
  };
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function reply(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain" }).end(text);
}
