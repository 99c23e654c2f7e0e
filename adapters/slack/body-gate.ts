import type { IncomingMessage, ServerResponse } from "node:http";
import {
  HTTPModuleFunctions as http,
  isValidSlackRequest,
  type Logger as SlackLogger,
} from "@slack/bolt";
import { z } from "zod";
import { readBlockActions } from "./buttons.ts";
import { REQUEST_MAX_SKEW_S } from "./limits.ts";

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;
/** Settles when the request was handed on or answered; rejects when Bolt threw. */
type GatedListener = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

// What Bolt's HTTPReceiver reads of a body before any listener runs, without guarding it:
// `body.ssl_check` on the body, `'channel' in event`, `'channel' in event.item`. A body of
// another shape (JSON `null`, `payload=null`) makes it throw where nothing catches it, and the
// process ends. Every real delivery has this shape (test/slack/real-payloads.test.ts replays recorded ones).
const slackBody = z
  .looseObject({
    type: z.string().optional(),
    event: z
      .looseObject({
        type: z.string(),
        channel: z.union([z.string(), z.looseObject({})]).optional(),
        item: z.looseObject({}).optional(),
      })
      .optional(),
  })
  .refine((body) => body.type !== "event_callback" || body.event !== undefined);

/**
 * Slack sends interactivity as a form with one `payload` field, to the same URL as events.
 * https://docs.slack.dev/interactivity/handling-user-interaction#payloads
 */
function isInteraction(request: IncomingMessage & { rawBody: Buffer }): boolean {
  return (
    request.headers["content-type"] === "application/x-www-form-urlencoded" &&
    new URLSearchParams(request.rawBody.toString()).has("payload")
  );
}

/**
 * A press of a button the bot can read. Bolt routes a body by `event`, `command` and `name`
 * before its type, and reads each part of a press before any listener runs (`user.id`,
 * `channel.id`, `actions[0]`): one Slack never sends (a part null) would throw there (500),
 * and a kind it has no listener for is held until its unhandled-request timeout (404).
 */
function isPress(body: unknown): boolean {
  const routedElsewhere = ["event", "command", "name"].some((key) =>
    Object.hasOwn(Object(body), key),
  );
  return !routedElsewhere && readBlockActions(body) !== undefined;
}

/**
 * In front of Bolt's request listener: a request that Slack signed but whose body has a shape
 * Slack never sends is answered 400 here and never reaches Bolt, and one dated more than five
 * minutes from our clock 401, ahead as well as behind (Bolt checks behind only). Everything
 * else goes on to Bolt unchanged (already read: Bolt takes the buffered body), so Bolt still
 * answers an unsigned request 401 and an unreadable body 400 after checking its signature.
 */
export function slackBodyGate(options: {
  signingSecret: string;
  logger: SlackLogger;
  next: RequestListener;
}): GatedListener {
  // Returned, not dropped: what Bolt throws reaches the HTTP server's boundary (a 500 and one
  // log line), never an unhandled rejection with the request left open.
  return (request, response) =>
    readAndCheck(request, options.signingSecret).then((verdict) => {
      if (verdict === "pass") return options.next(request, response);
      if (verdict === "malformed") {
        options.logger.warn("Slack request refused: signed, but its body is not a Slack payload");
      }
      if (verdict === "unused") {
        // Shortcuts, modals and menus the app's settings may enable; the bot offers none.
        options.logger.debug(
          "Slack interaction answered and dropped: not a press of the bot's buttons",
        );
      }
      if (verdict === "off-clock") {
        options.logger.warn(
          `Slack request refused: its timestamp is more than ${REQUEST_MAX_SKEW_S / 60} minutes from this machine's clock`,
        );
      }
      http.buildNoBodyResponse(response, STATUS[verdict]);
    });
}

type Verdict = "pass" | "unused" | "malformed" | "off-clock" | "too-large" | "unreadable";

const STATUS: Record<Exclude<Verdict, "pass">, number> = {
  // Slack asks for a 200 to every interaction, within 3 s.
  unused: 200,
  malformed: 400,
  // As Bolt answers a stale request.
  "off-clock": 401,
  "too-large": 413,
  unreadable: 400,
};

async function readAndCheck(request: IncomingMessage, signingSecret: string): Promise<Verdict> {
  let buffered: Awaited<ReturnType<typeof http.bufferIncomingMessage>>;
  try {
    buffered = await http.bufferIncomingMessage(request, http.defaultBodyLimit);
  } catch (error) {
    return http.isRawBodyError(error) && error.statusCode === 413 ? "too-large" : "unreadable";
  }
  // Without a timestamp, Bolt refuses the request as unsigned.
  const timestamp = Number(request.headers["x-slack-request-timestamp"]);
  if (Math.abs(Date.now() / 1000 - timestamp) > REQUEST_MAX_SKEW_S) {
    // Unsigned, it is Bolt's to refuse, with no line in the log anyone could fill.
    return isSigned(buffered, signingSecret) ? "off-clock" : "pass";
  }
  let body: unknown;
  try {
    body = http.parseHTTPRequestBody(buffered);
  } catch {
    // Bolt answers a body that does not parse itself, once it has checked the signature.
    return "pass";
  }
  const refusal = !slackBody.safeParse(body).success
    ? "malformed"
    : isInteraction(buffered) && !isPress(body)
      ? "unused"
      : undefined;
  // Unsigned, Bolt refuses it (401) whatever it holds.
  return refusal && isSigned(buffered, signingSecret) ? refusal : "pass";
}

function isSigned(request: IncomingMessage & { rawBody: Buffer }, signingSecret: string): boolean {
  const signature = request.headers["x-slack-signature"];
  const timestamp = Number(request.headers["x-slack-request-timestamp"]);
  if (typeof signature !== "string" || !Number.isFinite(timestamp)) return false;
  return isValidSlackRequest({
    signingSecret,
    body: request.rawBody.toString(),
    headers: { "x-slack-signature": signature, "x-slack-request-timestamp": timestamp },
  });
}
