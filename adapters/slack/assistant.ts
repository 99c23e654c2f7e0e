import { randomUUID } from "node:crypto";
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { Coordination } from "../../src/coordination/port.ts";
import type { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import type { Translator } from "../../src/i18n/translator.ts";
import type { Logger } from "../../src/log.ts";
import { escapeMrkdwn } from "./escape.ts";
import { MAX_SUGGESTED_PROMPTS } from "./limits.ts";
import { slackChannelKey } from "./to-incoming.ts";

export interface AssistantPrompt {
  title: string;
  message: string;
}

export interface AssistantOptions {
  /** Posted when a person opens the bot's empty DM or an assistant thread; the catalog's, in their language, when absent. */
  greeting?: string;
  /** Offered as one-click questions (Slack shows up to 4); the catalog's when absent. */
  prompts?: readonly AssistantPrompt[];
}

function greetingIn(t: Translator): string {
  return t.t("assistantGreeting", { command: "`/chatbot-help`" });
}

function promptsIn(t: Translator): AssistantPrompt[] {
  return [
    { title: t.t("promptAbilities"), message: t.t("promptAbilities") },
    { title: t.t("promptStart"), message: t.t("promptStart") },
    { title: t.t("promptSimpleTitle"), message: t.t("promptSimple") },
  ];
}

const threadStarted = z.looseObject({
  assistant_thread: z.looseObject({
    user_id: z.string().optional(),
    channel_id: z.string(),
    thread_ts: z.string(),
  }),
});

/** A person opened the bot's DM: its Messages tab, not the Home tab. */
const dmOpened = z.looseObject({
  type: z.literal("app_home_opened"),
  user: z.string(),
  channel: z.string(),
  tab: z.literal("messages"),
});

const GREETED_TTL_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * How long a DM is remembered as greeted (or found already talking). Past it, one look at the
 * DM's history (not empty by then) answers again.
 */
const DM_GREETED_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface AssistantGreeterDeps {
  client: webApi.WebClient;
  store: Coordination;
  log: Logger;
  /** The greeting's language: its DM's, else the person's Slack language. */
  languages: ChannelLanguages;
  admins: { locale(user: string): Promise<string | undefined> };
  /** The bot's workspace, known once started: it keys the DM's settings. */
  teamId: () => string | undefined;
  options?: AssistantOptions | undefined;
}

/** Where a greeting goes: a DM, and in the assistant pane the thread it opened. */
interface GreetingPlace {
  channel: string;
  threadTs?: string;
  user: string | undefined;
}

/**
 * Greets a person where they open the bot: a greeting and a few suggested prompts, in their
 * language. An app in Slack's agent view (`agent_view`, adapters/slack/manifest.yml) learns of
 * an opened DM from `app_home_opened`; one made from an older manifest (`assistant_view`)
 * from `assistant_thread_started`, for each thread of the assistant pane. Each is greeted once,
 * even when Slack delivers the event again.
 * https://docs.slack.dev/ai/migrating-to-agent-messaging/
 */
export class AssistantGreeter {
  readonly #owner = randomUUID();

  constructor(readonly deps: AssistantGreeterDeps) {}

  /**
   * A new thread of the assistant pane: greeted in that thread.
   * https://docs.slack.dev/reference/events/assistant_thread_started
   * `teamId`: the delivery's team (Bolt's context.teamId), as events name their channels.
   */
  async greetThread(event: unknown, teamId?: string): Promise<void> {
    const parsed = threadStarted.safeParse(event);
    if (!parsed.success) return;
    const {
      channel_id: channel,
      thread_ts: threadTs,
      user_id: user,
    } = parsed.data.assistant_thread;
    const key = `slack:greeted:${channel}:${threadTs}`;
    if (!(await this.deps.store.claim(key, this.#owner, GREETED_TTL_MS))) return;
    await this.#greet({ channel, threadTs, user }, teamId);
  }

  /**
   * The bot's DM opened in the agent view: greeted at its top, but only while the DM holds
   * no message yet. Slack sends this event on every opening, and asks apps to make sure it is
   * the first interaction before welcoming anyone
   * (https://docs.slack.dev/reference/events/app_home_opened): a DM with a conversation in it
   * (the person's, or one from before the app moved to the agent view) is left as it is.
   */
  async greetDm(event: unknown, teamId?: string): Promise<void> {
    const parsed = dmOpened.safeParse(event);
    if (!parsed.success) return;
    const { channel, user } = parsed.data;
    const { store, log } = this.deps;
    const key = `slack:greeted-dm:${this.#channelKey(channel, teamId)}`;
    if (!(await store.claim(key, this.#owner, DM_GREETED_TTL_MS))) return;
    try {
      if (await this.#holdsMessages(channel)) return;
      await this.#greet({ channel, user }, teamId);
    } catch (error) {
      // Not greeted: the next opening tries again.
      await store.release(key, this.#owner);
      log.warn({ err: error }, "opened DM not greeted");
    }
  }

  /** conversations.history (im:history): whether the DM has any message yet. */
  async #holdsMessages(channel: string): Promise<boolean> {
    const history = await this.deps.client.conversations.history({ channel, limit: 1 });
    return (history.messages ?? []).length > 0;
  }

  #channelKey(channel: string, teamId: string | undefined): string {
    return slackChannelKey(teamId ?? this.deps.teamId(), channel);
  }

  /**
   * The greeting, then the prompts, in that order: prompts set for a DM (no thread) show under
   * its latest message, the greeting; in the assistant pane they are the thread's. (The agent
   * view drops prompts set with a `thread_ts`, silently.)
   * https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts
   */
  async #greet(place: GreetingPlace, teamId: string | undefined): Promise<void> {
    const { client, log, options = {} } = this.deps;
    const { channel, threadTs, user } = place;
    const t = await this.deps.languages.translatorFor(
      this.#channelKey(channel, teamId),
      async () => (user === undefined ? undefined : this.deps.admins.locale(user)),
    );
    await client.chat.postMessage({
      channel,
      ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      text: escapeMrkdwn(options.greeting ?? greetingIn(t)),
    });
    const prompts = (options.prompts ?? promptsIn(t)).slice(0, MAX_SUGGESTED_PROMPTS);
    if (prompts.length === 0) return;
    await client.assistant.threads
      .setSuggestedPrompts({
        channel_id: channel,
        ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
        prompts: [...prompts],
      })
      .catch((error: unknown) => log.warn({ err: error }, "suggested prompts not set"));
  }
}
