import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatCall, type ChatDeps, handleChat } from "./chat.ts";
import { seededRandom } from "./chunks.ts";
import { ConversationFile } from "./conversation-file.ts";
import { Conversations } from "./conversations.ts";
import { type Faults, mergeFaults, parseFaults } from "./faults.ts";
import { type Reply, sendStatus } from "./http.ts";
import { LeadBook, type SimLead, type SimLeadInput } from "./leads.ts";
import { handleLeads, type LeadsDeps } from "./leads-route.ts";
import { resolveTiming, SIMULATOR_DEFAULTS, type SimulatorOptions } from "./options.ts";
import { RequestLog, type SimRequest } from "./request-log.ts";

export type FaultRoute = "chat" | "leads";

/** A running simulator: where it is, how to stop it, and the controls tests use. */
export interface Simulator {
  /** The API's {base_url}, e.g. http://127.0.0.1:8787 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly apiKey: string;
  /** The first (or only) bot uid served. */
  readonly botUid: string;
  /** Every bot uid served (SimulatorOptions.bots), the first being `botUid`. */
  readonly bots: readonly string[];
  /** Stops listening and drops every open connection, stalled streams included. */
  close(): Promise<void>;

  /**
   * Adds a lead (created now unless given) of its `bot_uid`'s chatbot (the first bot's by
   * default); it is the newest unless dated otherwise.
   */
  addLead(input?: SimLeadInput): SimLead;
  /** Adds `count` default leads of the first bot, or the given ones. */
  addLeads(leads: number | readonly SimLeadInput[]): SimLead[];
  /** Replaces every lead of a bot (default the first): a number to generate, or a list. */
  setLeads(leads: number | readonly SimLeadInput[], botUid?: string): void;
  leadCount(botUid?: string): number;

  /** false: chat answers 403 from now on. */
  setPaidPlan(paid: boolean): void;
  /** Changes the accepted key, e.g. to play a key deleted by the administrator. */
  setApiKey(apiKey: string): void;
  /** Directives applied to every request of the route from now on ("" clears them). */
  setFaults(directives: string, route?: FaultRoute): void;
  /** Directives applied to the next request of the route only (queued, first in first out). */
  queueFault(directives: string, route?: FaultRoute): void;
  /** Forgets every conversation, as a backend restart would. */
  forgetConversations(): void;
  /** Questions asked so far in a conversation; undefined when the simulator does not know it. */
  conversationTurns(conversationUid: string): number | undefined;

  /** The most recent requests (up to 1,000), oldest first. */
  readonly requests: readonly SimRequest[];
  /** Requests to a path (e.g. "/api/v1/backend/chatbot/sim-bot/chat"), or all of them. */
  hits(path?: string): number;
  /** Responses still open: streams in progress, stalls. */
  openResponses(): number;
  /** Empties the request log and the hit counts. */
  clearRequests(): void;
}

const PATH = /^\/api\/v1\/backend\/chatbot\/([^/]+)\/(leads|chat)$/;
const METHODS = { leads: "GET", chat: "POST" } as const;
const LOG_LIMIT = 1_000;

/**
 * Starts the simulated Chatbot Backend API on 127.0.0.1 (a free port unless `port` is given):
 * the same paths, auth, envelope and stream format as the spec, with fault directives.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? SIMULATOR_DEFAULTS.host;
  const bots = options.bots?.length
    ? [...options.bots]
    : [options.botUid ?? SIMULATOR_DEFAULTS.botUid];
  const botUid = bots[0] as string;
  let apiKey = options.apiKey ?? SIMULATOR_DEFAULTS.apiKey;
  let paidPlan = options.paidPlan ?? true;
  const now = options.now ?? (() => new Date());
  const timing = resolveTiming(options);
  const random = seededRandom(options.seed ?? 1);
  const faults: Record<FaultRoute, Faults> = {
    chat: parseFaults(options.faults ?? ""),
    leads: parseFaults(options.leadsFaults ?? ""),
  };
  const queued: Record<FaultRoute, Faults[]> = { chat: [], leads: [] };
  const baseFaults = (route: FaultRoute) => () => mergeFaults(faults[route], queued[route].shift());

  // Each chatbot its own leads, their bot_uid its own.
  const books = new Map(
    bots.map((bot) => {
      const book = new LeadBook(
        bot,
        now,
        options.leadsSpanDays ?? SIMULATOR_DEFAULTS.leadsSpanDays,
      );
      book.replace(options.leads ?? SIMULATOR_DEFAULTS.leads);
      return [bot, book] as const;
    }),
  );
  const bookOf = (bot: string | undefined): LeadBook => {
    const book = books.get(bot ?? botUid);
    if (!book) throw new TypeError(`the simulator serves no bot ${bot}`);
    return book;
  };
  const conversationFile =
    options.conversationsFile === undefined
      ? undefined
      : new ConversationFile(options.conversationsFile, options.onFileError ?? (() => undefined));
  const conversations = new Conversations(options.maxConversations ?? 10_000, () =>
    conversationFile?.save(() => conversations.entries()),
  );
  if (conversationFile) conversations.restore(await conversationFile.read());
  const log = new RequestLog(LOG_LIMIT);
  const closing = new AbortController();

  const leadsDeps: Omit<LeadsDeps, "leads"> = {
    maxPageSize: options.maxPageSize ?? SIMULATOR_DEFAULTS.maxPageSize,
    total: options.leadsTotal ?? "all",
    order: options.leadsOrder ?? "newest-first",
    timing,
    random,
    baseFaults: baseFaults("leads"),
  };
  const chatDeps: Omit<ChatDeps, "onCall" | "bot"> = {
    conversations,
    timing,
    random,
    unknownConversation: options.unknownConversation ?? "new",
    baseFaults: baseFaults("chat"),
    captureLead: (bot, conversationUid) => {
      bookOf(bot).add({ bot_uid: bot, conversation_uid: conversationUid });
    },
  };

  async function route(req: IncomingMessage, reply: Reply, record: SimRequest, url: URL) {
    if (!record.authorized) return sendStatus(reply, 401);
    const match = PATH.exec(url.pathname);
    if (match === null) return sendStatus(reply, 404, "path not found");
    const kind = match[2] as keyof typeof METHODS;
    if (req.method !== METHODS[kind]) {
      reply.res.setHeader("allow", METHODS[kind]);
      return sendStatus(reply, 405);
    }
    const bot = decodePathPart(match[1] ?? "");
    const leads = bot === undefined ? undefined : books.get(bot);
    if (bot === undefined || !leads) return sendStatus(reply, 404, "chatbot not found");
    record.route = kind;
    if (kind === "leads") return handleLeads({ ...leadsDeps, leads }, reply, url.searchParams);
    if (!paidPlan) return sendStatus(reply, 403);
    // With one bot, answers read as they always have; with several, each names its bot.
    const named = bots.length > 1 ? bot : undefined;
    const onCall = (call: ChatCall) => {
      record.chat = call;
    };
    return handleChat({ ...chatDeps, bot: { uid: bot, named }, onCall }, reply, req);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const url = new URL(req.url ?? "/", "http://simulator.invalid");
    const gone = new AbortController();
    const record = log.begin({
      requestId,
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorized: isAuthorized(req.headers.authorization, apiKey),
      at: now(),
    });
    res.on("close", () => {
      log.end(
        record,
        res.writableFinished ? "completed" : "aborted",
        res.headersSent ? res.statusCode : undefined,
      );
      gone.abort();
    });
    res.setHeader("x-request-id", requestId);
    const reply: Reply = {
      res,
      requestId,
      textField: options.envelopeTextField ?? "msg",
      signal: AbortSignal.any([gone.signal, closing.signal]),
    };
    try {
      await route(req, reply, record, url);
    } catch (error) {
      // Aborted waits are the normal end of a stalled or abandoned response.
      if (reply.signal.aborted) return;
      if (res.headersSent) res.destroy();
      else sendStatus(reply, 500, `simulator failure: ${(error as Error).message}`);
    }
  }

  const server = createServer({ noDelay: true }, (req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const trickle =
    options.leadEveryMs !== undefined && options.leadEveryMs > 0
      ? setInterval(() => bookOf(botUid).add(), options.leadEveryMs).unref()
      : undefined;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    get apiKey() {
      return apiKey;
    },
    botUid,
    bots,
    close() {
      closed ??= new Promise<void>((resolve) => {
        clearInterval(trickle);
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => conversationFile?.flush());
      return closed;
    },
    addLead: (input) => bookOf(input?.bot_uid).add(input),
    addLeads: (more) =>
      bookOf(undefined).addAll(
        typeof more === "number" ? Array.from({ length: more }, () => ({})) : more,
      ),
    setLeads: (list, bot) => bookOf(bot).replace(list),
    leadCount: (bot) => bookOf(bot).size,
    setPaidPlan: (paid) => {
      paidPlan = paid;
    },
    setApiKey: (key) => {
      apiKey = key;
    },
    setFaults: (directives, on = "chat") => {
      faults[on] = parseFaults(directives);
    },
    queueFault: (directives, on = "chat") => {
      queued[on].push(parseFaults(directives));
    },
    forgetConversations: () => conversations.clear(),
    conversationTurns: (uid) => conversations.turns(uid),
    get requests() {
      return log.entries;
    },
    hits: (path) => log.hits(path),
    openResponses: () => log.open,
    clearRequests: () => log.clear(),
  };
}

// The scheme is case-insensitive (RFC 9110 §11.1); the key must match exactly.
function isAuthorized(header: string | undefined, apiKey: string): boolean {
  const match = header === undefined ? null : /^bearer (.+)$/i.exec(header);
  return match !== null && match[1] === apiKey;
}

function decodePathPart(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
