import { randomUUID } from "node:crypto";
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import type { Translator } from "../../src/i18n/translator.ts";
import type { Logger } from "../../src/log.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import { escapeMrkdwn } from "./escape.ts";
import { MAX_SUGGESTED_PROMPTS } from "./limits.ts";
import { slackChannelKey } from "./to-incoming.ts";

export interface AssistantPrompt {
  title: string;
  message: string;
}

export interface AssistantOptions {
  /** Posted when a person opens a new assistant thread; the catalog's, in their language, when absent. */
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

const GREETED_TTL_MS = 2 * 24 * 60 * 60 * 1000;

export interface AssistantGreeterDeps {
  client: webApi.WebClient;
  store: KeyValueStore;
  log: Logger;
  /** The pane's language: its DM's, else the person's Slack language. */
  languages: ChannelLanguages;
  admins: { locale(user: string): Promise<string | undefined> };
  /** The bot's workspace, known once started: it keys the DM's settings. */
  teamId: () => string | undefined;
  options?: AssistantOptions | undefined;
}

/**
 * Opens an assistant thread (the assistant pane): a greeting and a few suggested prompts,
 * in the person's language, once per thread even when Slack delivers the event again.
 * https://docs.slack.dev/reference/events/assistant_thread_started
 */
export class AssistantGreeter {
  readonly #owner = randomUUID();

  constructor(readonly deps: AssistantGreeterDeps) {}

  /** `teamId`: the delivery's team (Bolt's context.teamId), as events name their channels. */
  async greet(event: unknown, teamId?: string): Promise<void> {
    const parsed = threadStarted.safeParse(event);
    if (!parsed.success) return;
    const { client, store, log, options = {} } = this.deps;
    const {
      channel_id: channel,
      thread_ts: threadTs,
      user_id: user,
    } = parsed.data.assistant_thread;
    if (!(await store.claim(`slack:greeted:${channel}:${threadTs}`, this.#owner, GREETED_TTL_MS))) {
      return;
    }
    const t = await this.deps.languages.translatorFor(
      slackChannelKey(teamId ?? this.deps.teamId(), channel),
      async () => (user === undefined ? undefined : this.deps.admins.locale(user)),
    );
    const prompts = (options.prompts ?? promptsIn(t)).slice(0, MAX_SUGGESTED_PROMPTS);
    await Promise.all([
      client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text: escapeMrkdwn(options.greeting ?? greetingIn(t)),
      }),
      prompts.length > 0
        ? client.assistant.threads
            .setSuggestedPrompts({
              channel_id: channel,
              thread_ts: threadTs,
              prompts: [...prompts],
            })
            .catch((error: unknown) => log.warn({ err: error }, "suggested prompts not set"))
        : undefined,
    ]);
  }
}
