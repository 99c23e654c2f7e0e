import { randomUUID } from "node:crypto";
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { Logger } from "../../src/log.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import { escapeMrkdwn } from "./escape.ts";
import { MAX_SUGGESTED_PROMPTS } from "./limits.ts";

export interface AssistantPrompt {
  title: string;
  message: string;
}

export interface AssistantOptions {
  /** Posted when a person opens a new assistant thread. */
  greeting?: string;
  /** Offered as one-click questions (Slack shows up to 4). */
  prompts?: readonly AssistantPrompt[];
}

const DEFAULT_GREETING =
  "Hi! Ask me anything. Each thread here is its own conversation; `/chatbot-help` lists the commands.";

const DEFAULT_PROMPTS: readonly AssistantPrompt[] = [
  { title: "What can you do?", message: "What can you do?" },
  { title: "Where do I start?", message: "Where do I start?" },
  { title: "Explain it simply", message: "Explain what you know about in a few simple sentences." },
];

const threadStarted = z.looseObject({
  assistant_thread: z.looseObject({ channel_id: z.string(), thread_ts: z.string() }),
});

const GREETED_TTL_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * Opens an assistant thread (the assistant pane): a greeting and a few suggested prompts,
 * once per thread even when Slack delivers the event again.
 * https://docs.slack.dev/reference/events/assistant_thread_started
 */
export class AssistantGreeter {
  readonly #owner = randomUUID();

  constructor(
    readonly client: webApi.WebClient,
    readonly store: KeyValueStore,
    readonly log: Logger,
    readonly options: AssistantOptions = {},
  ) {}

  async greet(event: unknown): Promise<void> {
    const parsed = threadStarted.safeParse(event);
    if (!parsed.success) return;
    const { channel_id: channel, thread_ts: threadTs } = parsed.data.assistant_thread;
    if (
      !(await this.store.claim(`slack:greeted:${channel}:${threadTs}`, this.#owner, GREETED_TTL_MS))
    ) {
      return;
    }
    const prompts = (this.options.prompts ?? DEFAULT_PROMPTS).slice(0, MAX_SUGGESTED_PROMPTS);
    await Promise.all([
      this.client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text: escapeMrkdwn(this.options.greeting ?? DEFAULT_GREETING),
      }),
      prompts.length > 0
        ? this.client.assistant.threads
            .setSuggestedPrompts({
              channel_id: channel,
              thread_ts: threadTs,
              prompts: [...prompts],
            })
            .catch((error: unknown) => this.log.warn({ err: error }, "suggested prompts not set"))
        : undefined,
    ]);
  }
}
