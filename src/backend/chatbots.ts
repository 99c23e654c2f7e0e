import { type BackendConfig, type ChatbotSpec, DEFAULT_CHATBOT_NAME } from "../config.ts";
import type { Logger } from "../log.ts";
import { type BackendAccountOptions, createBackendAccount } from "./client.ts";
import { ChatbotRefusal } from "./refusal.ts";
import type { BackendClient } from "./types.ts";

/**
 * One chatbot of the account: its name in CHATBOTS, its bot_uid, and its client, whose every
 * call tells the chatbot's refusal (ChatbotRefusal) how it went.
 */
export interface Chatbot {
  readonly name: string;
  /**
   * Its bot_uid, by which a thread's conversation remembers which chatbot it belongs to (a
   * conversation_uid means something to that chatbot only). Undefined for a lone client
   * given without it (Chatbots.single): its records name no chatbot, as an earlier
   * version's did, and such a record is the default chatbot's.
   */
  readonly botUid: string | undefined;
  readonly client: BackendClient;
}

/**
 * The chatbots one deployment talks to (docs/chatbot.md, "Several chatbots"): the first is the
 * default of every channel that chose none. With one, nothing people see names it.
 */
export class Chatbots {
  readonly all: readonly Chatbot[];
  readonly #close: () => Promise<void>;

  constructor(all: readonly Chatbot[], close: () => Promise<void>) {
    if (all.length === 0) throw new TypeError("a deployment has at least one chatbot");
    this.all = all;
    this.#close = close;
  }

  /**
   * One chatbot whose client was made elsewhere (tests, the bench): named "default". Its
   * refusals are logged to `log` (none: not at all).
   */
  static single(client: BackendClient, botUid?: string, log?: Logger): Chatbots {
    const chatbot = watched({ name: DEFAULT_CHATBOT_NAME, botUid }, client, "CHATBOT_BOT_UID", log);
    return new Chatbots([chatbot], () => client.close());
  }

  /**
   * The account's chatbots, each with its client on the account's one pool; `variable` named
   * them, the operator's hint when the backend refuses one, and `log` gets those lines.
   */
  static open(
    account: BackendAccountOptions,
    specs: readonly ChatbotSpec[],
    variable: BackendConfig["chatbotsVariable"],
    log: Logger,
  ): Chatbots {
    const pool = createBackendAccount(account);
    const all = specs.map((spec) => watched(spec, pool.chatbot(spec.botUid), variable, log));
    return new Chatbots(all, () => pool.close());
  }

  /** The chatbot of every channel that chose none. */
  get default(): Chatbot {
    return this.all[0] as Chatbot;
  }

  /** Whether people choose among several: only then do replies name a chatbot. */
  get several(): boolean {
    return this.all.length > 1;
  }

  get names(): string[] {
    return this.all.map((chatbot) => chatbot.name);
  }

  /** The chatbot a person named (in any letter case), or undefined. */
  named(name: string | undefined): Chatbot | undefined {
    const wanted = name?.toLowerCase();
    return this.all.find((chatbot) => chatbot.name === wanted);
  }

  /** The chatbot a stored record names by bot_uid; a record naming none is the default's. */
  ofRecord(botUid: string | undefined): Chatbot | undefined {
    if (botUid === undefined) return this.default;
    return this.all.find((chatbot) => chatbot.botUid === botUid);
  }

  /** The name people see for a lead of `botUid`, where there are several to tell apart. */
  labelOf(botUid: string): string | undefined {
    return this.several ? this.all.find((chatbot) => chatbot.botUid === botUid)?.name : undefined;
  }

  close(): Promise<void> {
    return this.#close();
  }
}

/** A chatbot whose client's calls go through its refusal, the one owner of what the operator is told of it. */
function watched(
  spec: { name: string; botUid: string | undefined },
  client: BackendClient,
  variable: BackendConfig["chatbotsVariable"],
  log: Logger | undefined,
): Chatbot {
  const refusal = new ChatbotRefusal({ name: spec.name, variable }, log);
  return { name: spec.name, botUid: spec.botUid, client: refusal.watch(client) };
}
