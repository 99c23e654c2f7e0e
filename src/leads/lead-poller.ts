import type { Chatbots } from "../backend/chatbots.ts";
import type { BackendClient } from "../backend/types.ts";
import { DEFAULT_CHATBOT_NAME } from "../config.ts";
import type { Coordination } from "../coordination/port.ts";
import { ProcessClaim } from "../coordination/process-claim.ts";
import { ProcessPresence } from "../coordination/process-presence.ts";
import type { ProcessSignals } from "../coordination/signals.ts";
import type { WriteBacks } from "../coordination/store-mark.ts";
import { BridgeError, settingProblem, storeFailureLevel } from "../errors.ts";
import type { HandoverBook } from "../handover/handover-book.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { Lead, LeadAnnouncer } from "../ports.ts";
import type { ConversationOrigin } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { daysBefore, fetchLeads } from "./fetch-leads.ts";
import { leadCardRedraw } from "./lead-card-redraw.ts";
import { leadChannelLanguage } from "./lead-channel-language.ts";
import { channelKeyOf, type LeadChannel, type LeadChannels } from "./lead-channels.ts";
import { canTalk, cardState, type LeadClaimBook } from "./lead-claims.ts";
import { leadId } from "./lead-id.ts";
import { cleanLead, leadAnnouncement } from "./lead-text.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The chatbot whose leads a poller announces (one poller per chatbot of the deployment). */
export interface PolledChatbot {
  /** Its name in CHATBOTS: the lead channels subscribed to it, and the poll's log lines. */
  name: string;
  /**
   * The chatbot's bot_uid: its leads are known by it, and its poll keeps its state under it.
   * None: the keys of a version with one chatbot.
   */
  botUid: string | undefined;
  /**
   * The default chatbot takes over the poll state a version with one chatbot left (under keys
   * without a bot_uid) until it has its own: an upgrade neither announces old leads again nor
   * misses those of the upgrade's downtime.
   */
  isDefault: boolean;
}

/** The one chatbot of a deployment that has one (as tests build a poller). */
const ONLY_CHATBOT: PolledChatbot = {
  name: DEFAULT_CHATBOT_NAME,
  botUid: undefined,
  isDefault: true,
};

export interface LeadPollerOptions {
  /** The polled chatbot's client. */
  backend: BackendClient;
  /** Whose leads these are. Default: the deployment's one chatbot. */
  chatbot?: PolledChatbot;
  /** The name a card shows for a lead of a bot_uid (Chatbots.labelOf); none shows none. */
  chatbotLabel?: ((botUid: string) => string | undefined) | undefined;
  store: KeyValueStore & Coordination;
  channels: LeadChannels;
  announcers: readonly LeadAnnouncer[];
  /** Each lead channel's language, for its announcements' words. None: English. */
  languages?: ChannelLanguages;
  /** With it, each announcement carries the claim button and is recorded for its presses. */
  claims?: LeadClaimBook | undefined;
  log: Logger;
  metrics?: Metrics | undefined;
  intervalMs: number;
  /**
   * LEADS_AFTER_ANSWER_S: an answer of the chatbot has its leads polled again this long after
   * it, once however many answers come meanwhile (with `signals`, whichever process answered).
   * Default 0: only at `intervalMs`.
   */
  afterAnswerMs?: number;
  /** The messages between processes: an answer elsewhere reaches the process that polls. */
  signals?: ProcessSignals | undefined;
  /** Where the conversations the bot carried are: a card says where its lead was captured. */
  origins?: ConversationOrigins | undefined;
  /** The leads' hand-overs (src/handover/), which a redrawn card shows. */
  handovers?: HandoverBook | undefined;
  /** Largest page asked for; a server that caps it is noticed and followed. */
  pageSize?: number;
  maxPages?: number;
  /** How far back a poll after a long outage still looks. */
  maxLookbackDays?: number;
  /** How long a claim to post a lead holds before another process may try again. */
  postingClaimMs?: number;
  /** Longest wait after failed polls. */
  maxBackoffMs?: number;
  /**
   * This process: it polls while its presence holds, and a dead poller's role frees with its
   * presence. Default: a presence of the poller's own, with `leaseMs`, closed by stop().
   */
  presence?: ProcessPresence | undefined;
  /** The lease of the poller's own presence, when it is given none. */
  leaseMs?: number;
  /**
   * Where the poll's state is written back from should the store lose its data, and what says
   * so: with it, a poll that finds its state gone after a loss is never taken for a first one.
   */
  writeBacks?: WriteBacks | undefined;
  now?: () => Date;
}

/** The options that have no default. */
type Optional =
  | "metrics"
  | "languages"
  | "claims"
  | "chatbotLabel"
  | "presence"
  | "writeBacks"
  | "signals"
  | "origins"
  | "handovers";

/** Where each conversation the bot carried is (Conversations.origin). */
export interface ConversationOrigins {
  origin(conversationUid: string): Promise<ConversationOrigin | undefined>;
}

export interface PollReport {
  outcome: "announced" | "first-poll" | "not-leader";
  requests: number;
  announced: number;
}

/** A lead's keys: its id holds its chatbot's bot_uid (leadId), so no two chatbots' meet. */
const KEYS = {
  seen: (id: string) => `lead:seen:${id}`,
  sent: (channel: LeadChannel, id: string) => `lead:sent:${channelKeyOf(channel)}:${id}`,
};

/** Where a chatbot's poll keeps its state; those of a version with one chatbot had no bot_uid. */
function pollKeys(botUid: string | undefined) {
  const at = botUid === undefined ? "leads" : `leads:${botUid}`;
  return {
    // Named so by an earlier version, when a lease of its own held it.
    poller: `${at}:poll-lease`,
    initialized: `${at}:initialized`,
    lastSuccess: `${at}:last-success`,
  };
}
const EARLIER_POLL_KEYS = pollKeys(undefined);
/** The message that asks the polling process for a poll of chatbot `name` soon. */
const soonKind = (name: string) => `leads.soon:${name}`;
// A lead stays known well past the widest window a poll looks at: a kept record (see Ttl), so
// memory pressure on Redis never makes an announced lead new again.
const REMEMBER_MS = 60 * DAY_MS;
const REMEMBERED = { keptMs: REMEMBER_MS };

/** What this process's last poll left in the store, to write back should the store lose it. */
interface PollState {
  initialized: string;
  lastSuccess: string;
  /** The ids of the leads of the last poll's window that are announced or recorded as seen. */
  seen: Set<string>;
}

/**
 * The lead poll of a deployment: one poller per chatbot, each with its own lease and pace, so
 * that a chatbot the backend refuses holds up none of the others.
 */
export function leadPollers(
  chatbots: Chatbots,
  options: Omit<LeadPollerOptions, "backend" | "chatbot" | "chatbotLabel">,
): LeadPoller[] {
  return chatbots.all.map(
    (chatbot) =>
      new LeadPoller({
        ...options,
        backend: chatbot.client,
        chatbot: {
          name: chatbot.name,
          botUid: chatbot.botUid,
          isDefault: chatbot === chatbots.default,
        },
        chatbotLabel: (botUid) => chatbots.labelOf(botUid),
      }),
  );
}

/**
 * Announces each new lead of one chatbot once in every lead channel that gets its leads (a
 * deployment runs one per chatbot: leadPollers). One process polls a chatbot at a time (a key
 * naming it, held while its presence holds: ProcessClaim); each lead is claimed per channel before it is posted and marked done
 * after, so overlapping leases or two processes never post it twice, and a crash between
 * claim and post only delays it until the claim expires (never a miss; at most one
 * duplicate when a crash lands between the post and its mark).
 */
export class LeadPoller {
  readonly #options: Required<Omit<LeadPollerOptions, Optional>> &
    Pick<LeadPollerOptions, Optional>;
  readonly #keys: ReturnType<typeof pollKeys>;
  /** This process: it names the poller and the claims to post a lead. */
  readonly #presence: ProcessPresence;
  /** Draws a lead's cards as its holder is now (with `claims`). */
  readonly #redraw: ((id: string) => Promise<void>) | undefined;
  /** Who polls: one process at a time. */
  readonly #poller: ProcessClaim;
  #timer: NodeJS.Timeout | undefined;
  /** The poll an answer asked for, while it waits for its time. */
  #soon: NodeJS.Timeout | undefined;
  /** When (performance.now()) an answer here last asked for a poll. */
  #askedAt = Number.NEGATIVE_INFINITY;
  #failures = 0;
  #stopped = false;
  #running: Promise<unknown> | undefined;
  /**
   * The poll's state as this process's last poll left it, while this process polls (bounded
   * by the leads of one window: pageSize × maxPages).
   */
  #state: PollState | undefined;
  /** The store's losses this poller has dealt with (WriteBacks.losses). */
  #losses = 0;
  /** A poll found its state gone after a loss, with no copy here: the holder's is waited for once. */
  #waitedForHolder = false;

  constructor(options: LeadPollerOptions) {
    const chatbot = options.chatbot ?? ONLY_CHATBOT;
    this.#options = {
      pageSize: 100,
      maxPages: 50,
      maxLookbackDays: 7,
      postingClaimMs: 120_000,
      maxBackoffMs: 30 * 60_000,
      leaseMs: 30_000,
      afterAnswerMs: 0,
      now: () => new Date(),
      ...options,
      chatbot,
      // Every line names the chatbot, where there are several to tell apart.
      log: chatbot === ONLY_CHATBOT ? options.log : options.log.child({ chatbot: chatbot.name }),
    };
    const { claims, announcers, languages, chatbotLabel, handovers, log } = this.#options;
    this.#keys = pollKeys(chatbot.botUid);
    this.#redraw =
      claims &&
      leadCardRedraw({ book: claims, announcers, languages, chatbotLabel, handovers, log });
    const { store, leaseMs } = this.#options;
    this.#presence = options.presence ?? new ProcessPresence({ store, log, leaseMs });
    // The role holds between polls (which may be minutes apart) as long as this process
    // lives: when it dies, another takes polling over within its presence's lease, not an
    // interval.
    this.#poller = new ProcessClaim({ store, presence: this.#presence, key: this.#keys.poller });
    const { writeBacks } = this.#options;
    this.#losses = writeBacks?.losses ?? 0;
    writeBacks?.hold({
      what: `lead poll of ${chatbot.name}`,
      writeBack: () => this.#writeBack(),
    });
    this.#options.signals?.on(soonKind(chatbot.name), () => this.#pollSoon());
  }

  /**
   * An answer of this chatbot ended in this process: the process that polls polls again
   * within `afterAnswerMs`. Asked once per that time at most: a poll then sees every lead
   * captured before it.
   */
  answered(): void {
    const { afterAnswerMs, signals, chatbot } = this.#options;
    if (afterAnswerMs === 0 || this.#stopped) return;
    if (performance.now() - this.#askedAt < afterAnswerMs) return;
    this.#askedAt = performance.now();
    if (this.#poller.held) this.#pollSoon();
    // A hint, as every message between processes: a lost one leaves the lead to the next poll.
    else void signals?.broadcast(soonKind(chatbot.name), {}).catch(() => undefined);
  }

  /** A poll `afterAnswerMs` from now, if this process polls and none is on its way already. */
  #pollSoon(): void {
    if (this.#stopped || this.#soon || !this.#poller.held) return;
    this.#soon = setTimeout(() => {
      this.#soon = undefined;
      this.#options.log.debug("lead poll after an answer");
      void this.#poll();
    }, this.#options.afterAnswerMs);
    this.#soon.unref();
  }

  /** The name of the chatbot whose leads this poller announces. */
  get chatbot(): string {
    return this.#options.chatbot.name;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#soon);
    this.#soon = undefined;
    await this.#running?.catch(() => undefined);
    await this.#poller.release().catch(() => undefined);
    if (!this.#options.presence) await this.#presence.close();
  }

  /** One poll: fetch the window, announce what is new. Throws what made it fail. */
  async pollOnce(): Promise<PollReport> {
    const { store, log } = this.#options;
    if (!(await this.#poller.acquire())) {
      // Another process polls: what this one knew of the poll is no longer the latest.
      this.#state = undefined;
      this.#options.metrics?.leadPolls.inc({ outcome: "not-leader" });
      return { outcome: "not-leader", requests: 0, announced: 0 };
    }
    const now = this.#options.now();
    let [initialized, lastSuccess] = await Promise.all([
      this.#mark("initialized"),
      this.#mark("lastSuccess"),
    ]);
    // Without its state, a poll is a first one, unless the store lost its data (below).
    let announceSince: Date | undefined;
    if (!initialized) {
      const after = await this.#afterLoss(now);
      if (after === "wait") {
        await this.#poller.release();
        this.#options.metrics?.leadPolls.inc({ outcome: "not-leader" });
        return { outcome: "not-leader", requests: 0, announced: 0 };
      }
      if (after instanceof Date) announceSince = after;
      else if (after) {
        initialized = { value: after.initialized, own: true };
        lastSuccess = { value: after.lastSuccess, own: true };
      }
    }
    const fetched = await fetchLeads({
      backend: this.#options.backend,
      from: this.#windowStart(now, lastSuccess?.value),
      to: new Date(now.getTime() + DAY_MS),
      pageSize: this.#options.pageSize,
      maxPages: this.#options.maxPages,
      botUid: this.#options.chatbot.botUid,
    });
    this.#options.metrics?.leadsFetched.inc(fetched.leads.length);
    if (fetched.cappedPageSize !== undefined) {
      log.info({ pageSize: fetched.cappedPageSize }, "the backend caps the leads page size");
    }
    if (fetched.incomplete)
      log.warn({ pages: fetched.requests }, "lead poll stopped at its page limit");
    const seen = new Set<string>();
    if (!initialized) {
      const announced = await this.#firstPoll(fetched.leads, seen, announceSince);
      await store.setMany([
        { key: this.#keys.initialized, value: now.toISOString() },
        { key: this.#keys.lastSuccess, value: now.toISOString() },
      ]);
      this.#kept(now.toISOString(), now, seen);
      return { outcome: "first-poll", requests: fetched.requests, announced };
    }
    const announced = await this.#announceNew(fetched.leads, seen);
    // Taken over from a version with one chatbot: from now on the chatbot has its own.
    if (!initialized.own) await store.set(this.#keys.initialized, initialized.value);
    await store.set(this.#keys.lastSuccess, now.toISOString());
    this.#kept(initialized.value, now, seen);
    return { outcome: "announced", requests: fetched.requests, announced };
  }

  /**
   * A poll without its state: existing leads are recorded as seen, not announced, but those
   * created since `announceSince` (a poll after the store lost the poll's state: see afterLoss).
   */
  async #firstPoll(leads: Lead[], seen: Set<string>, announceSince?: Date): Promise<number> {
    const since = announceSince?.getTime() ?? Number.POSITIVE_INFINITY;
    const isRecent = (lead: Lead) => Date.parse(lead.createdAt) >= since;
    const history = leads.filter((lead) => !isRecent(lead));
    await this.#options.store.setMany(
      history.map((lead) => ({ key: KEYS.seen(leadId(lead)), value: true, ttlMs: REMEMBERED })),
    );
    for (const lead of history) seen.add(leadId(lead));
    const announced = await this.#announceNew(leads.filter(isRecent), seen);
    if (announceSince) {
      this.#options.log.warn(
        { leads: history.length, announced, since: announceSince.toISOString() },
        "lead poll after the store lost its data, with no process holding the poll's state: leads created since a poll interval before the loss are announced (one announced just before it may come again), older ones recorded as seen",
      );
    } else {
      this.#options.log.info(
        { leads: history.length },
        "first lead poll: existing leads recorded as seen, not announced",
      );
    }
    return announced;
  }

  /**
   * The poll's state is gone. A first poll, unless the store lost its data since this poller
   * last looked (StoreMark), which is never taken for one: this process's copy of the state
   * is written back and the poll goes on from it; without a copy here, the role is given back
   * once ("wait"), for the process that polled to write its copy back; if none did, the poll
   * announces the leads created since a poll interval (and a presence lease) before the loss.
   */
  async #afterLoss(now: Date): Promise<PollState | Date | "wait" | undefined> {
    const { writeBacks } = this.#options;
    if (!writeBacks) return undefined;
    // A loss noticed now has had every holder write back, this poller included.
    const noticedNow = await writeBacks.check();
    if (!noticedNow && writeBacks.losses === this.#losses) return undefined;
    const state = this.#state;
    if (state) {
      if (!noticedNow) await this.#writeBack();
      this.#losses = writeBacks.losses;
      return state;
    }
    if (!this.#waitedForHolder) {
      this.#waitedForHolder = true;
      return "wait";
    }
    this.#waitedForHolder = false;
    this.#losses = writeBacks.losses;
    const lostAt = writeBacks.lostAt ?? now.getTime();
    return new Date(lostAt - this.#options.intervalMs - this.#presence.leaseMs);
  }

  /** This process polled: what the poll left in the store is kept, to write back. */
  #kept(initialized: string, at: Date, seen: Set<string>): void {
    this.#state = { initialized, lastSuccess: at.toISOString(), seen };
    this.#waitedForHolder = false;
  }

  /** Writes the poll's state back, as this process's last poll left it. */
  async #writeBack(): Promise<number> {
    const state = this.#state;
    if (!state) return 0;
    const seen = [...state.seen].map((id) => ({
      key: KEYS.seen(id),
      value: true,
      ttlMs: REMEMBERED,
    }));
    await this.#options.store.setMany([
      { key: this.#keys.initialized, value: state.initialized },
      { key: this.#keys.lastSuccess, value: state.lastSuccess },
      ...seen,
    ]);
    return 2 + seen.length;
  }

  /** Announces the leads not seen yet; `seen` gets every lead that is seen once done. */
  async #announceNew(leads: Lead[], seenNow: Set<string>): Promise<number> {
    const { store } = this.#options;
    // Servers list newest first (the spec is silent): reversed, leads of the same second
    // keep their order of arrival; the sort then fixes the order of any other listing.
    const oldestFirst = [...leads]
      .reverse()
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    const ids = oldestFirst.map(leadId);
    const seen = await store.getMany<boolean>(ids.map(KEYS.seen));
    const channels = await this.#options.channels.of(this.#options.chatbot.name);
    let announced = 0;
    let failed: unknown;
    for (const [index, lead] of oldestFirst.entries()) {
      const id = ids[index] ?? leadId(lead);
      if (seen[index]) {
        seenNow.add(id);
        continue;
      }
      let complete = true;
      const shown = cleanLead({ ...lead, origin: await this.#originOf(lead) });
      for (const channel of channels) {
        const result = await this.#announceOnce(channel, id, shown).catch((error: unknown) => {
          failed ??= error;
          return "failed" as const;
        });
        if (result === "posted") announced++;
        if (result !== "done" && result !== "posted") complete = false;
      }
      if (!complete) continue;
      await store.set(KEYS.seen(id), true, REMEMBERED);
      seenNow.add(id);
    }
    // Announced leads stay announced; the poll still counts as failed, so it is retried.
    if (failed) throw failed;
    return announced;
  }

  /** `shown`: the lead, cleaned, with where it was captured. */
  async #announceOnce(
    channel: LeadChannel,
    id: string,
    shown: Lead,
  ): Promise<"done" | "posted" | "busy" | "no-announcer"> {
    const { store } = this.#options;
    const key = KEYS.sent(channel, id);
    const announcer = this.#options.announcers.find((a) => a.platform === channel.platform);
    if (!announcer) return "no-announcer";
    if ((await store.get(key)) === "done") return "done";
    // Another process is posting it right now (or crashed doing so: its claim expires).
    if (!(await store.claim(key, this.#presence.id, this.#options.postingClaimMs))) return "busy";
    const { claims } = this.#options;
    const at = { platform: channel.platform, channelId: channel.id };
    let message: unknown;
    let drawn: string | undefined;
    try {
      const t = await leadChannelLanguage(announcer, channel.id, this.#options.languages);
      await claims?.announcing(id, shown, at);
      const holder = await claims?.holder(id);
      drawn = holder?.record;
      const state = claims && cardState(id, { claim: holder?.claim, talk: canTalk(shown) }, t);
      const chatbot = this.#options.chatbotLabel?.(shown.botUid);
      message = await announcer.announce(channel.id, leadAnnouncement(shown, t, chatbot), state);
    } catch (error) {
      await store.release(key, this.#presence.id).catch(() => undefined);
      throw error;
    }
    // Posted: a failure to record it costs its buttons (a press is told the lead cannot be
    // claimed there), never a second announcement.
    await claims
      ?.posted(id, { ...at, message })
      .then(async () => {
        // Pressed as it appeared, the lead may have changed hands after this card was drawn,
        // and the press's redraw may have come before this card was recorded.
        if ((await claims.holder(id))?.record !== drawn) await this.#redraw?.(id);
      })
      .catch((error: unknown) =>
        this.#options.log.warn(
          { kind: error instanceof BridgeError ? error.code : "UNEXPECTED" },
          "lead announced, but its claim button could not be recorded",
        ),
      );
    await store.set(key, "done", REMEMBERED);
    this.#options.metrics?.leadsAnnounced.inc({ channel: channel.platform });
    return "posted";
  }

  /**
   * Where the lead's conversation happened, as the platform that carried it tells; "outside"
   * for one this bot did not carry; undefined when that cannot be told now (the store away,
   * the platform not running here).
   */
  async #originOf(lead: Lead): Promise<Lead["origin"]> {
    const { origins, announcers, log } = this.#options;
    if (!origins) return undefined;
    let kept: ConversationOrigin | undefined;
    try {
      kept = await origins.origin(lead.conversationUid);
    } catch (error) {
      log[storeFailureLevel(error)]({ err: error }, "a lead's conversation could not be looked up");
      return undefined;
    }
    if (!kept) return "outside";
    const announcer = announcers.find((a) => a.platform === kept.channel);
    return announcer?.describeOrigin?.(kept.at).catch(() => undefined);
  }

  /**
   * A mark of the chatbot's poll (an ISO time), and whether it is the chatbot's own: the
   * default chatbot's falls back on the one a version with one chatbot left, in one read.
   */
  async #mark(
    mark: "initialized" | "lastSuccess",
  ): Promise<{ value: string; own: boolean } | undefined> {
    const own = this.#keys[mark];
    const earlier = EARLIER_POLL_KEYS[mark];
    const keys = this.#options.chatbot.isDefault && own !== earlier ? [own, earlier] : [own];
    const values = await this.#options.store.getMany<string>(keys);
    const index = values.findIndex((value) => typeof value === "string");
    const value = values[index];
    return value === undefined ? undefined : { value, own: index === 0 };
  }

  /** From the day before the last good poll, but never further back than the lookback. */
  #windowStart(now: Date, last: string | undefined): Date {
    const lastTime = last ? new Date(last) : now;
    const earliest = daysBefore(now, this.#options.maxLookbackDays);
    const start = daysBefore(Number.isNaN(lastTime.getTime()) ? now : lastTime, 1);
    return start < earliest ? earliest : start;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.#poll().then(() => this.#schedule(this.#nextDelay()));
    }, delayMs);
    this.#timer.unref();
  }

  /** One poll, after the one under way if any, its outcome counted and logged. */
  #poll(): Promise<void> {
    const poll = (this.#running ?? Promise.resolve())
      .catch(() => undefined)
      // A poll asked for while another ran is dropped by a stop meanwhile.
      .then(() => (this.#stopped ? undefined : this.pollOnce()))
      .then(
        (report) => {
          if (!report) return;
          this.#failures = 0;
          if (report.outcome !== "not-leader")
            this.#options.metrics?.leadPolls.inc({ outcome: "ok" });
          if (report.announced > 0)
            this.#options.log.info({ announced: report.announced }, "leads announced");
        },
        (error: unknown) => {
          this.#failures++;
          this.#options.metrics?.leadPolls.inc({ outcome: "failed" });
          // One line, the failure's kind only: lead data never reaches the log. A store
          // outage is logged by the store, once; a chatbot the backend refuses by the
          // chatbot's client, once (src/backend/refusal.ts), for its answers and polls alike.
          const fields = {
            kind: error instanceof BridgeError ? error.code : "UNEXPECTED",
            failures: this.#failures,
          };
          const level = settingProblem(error) ? "debug" : storeFailureLevel(error);
          this.#options.log[level](fields, "lead poll failed; retrying later");
        },
      );
    this.#running = poll;
    return poll;
  }

  #nextDelay(): number {
    const { intervalMs, maxBackoffMs } = this.#options;
    if (this.#failures === 0) return intervalMs;
    return Math.min(maxBackoffMs, Math.max(1_000, intervalMs / 4) * 2 ** (this.#failures - 1));
  }
}
