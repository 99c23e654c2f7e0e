import {
  BridgeError,
  type ChatbotSetting,
  chatbotInLog,
  listedChatbot,
  PermissionError,
  settingProblem,
} from "../errors.ts";
import type { Logger } from "../log.ts";
import type { BackendClient } from "./types.ts";

type Call = "chat" | "leads";

/**
 * Whether the backend refuses one chatbot: rejects the key (401), refuses the operation (403:
 * no paid plan), knows no such bot_uid (404), or cannot be reached at all (settingProblem
 * names each and the setting to check). The operator is told once when it starts, and once
 * when a call of the chatbot succeeds again, however many questions, lead polls and `/leads`
 * meet it meanwhile (docs/chatbot.md, "Several chatbots"); the person who asked is told every time, by
 * whoever asked.
 */
export class ChatbotRefusal {
  readonly #setting: ChatbotSetting;
  readonly #log: Logger | undefined;
  /**
   * What the backend refuses now, as the operator was told it, and since when; `call`: a
   * refusal of one operation only (a 403: chat without the paid plan, while leads are listed).
   */
  #refused: { problem: string; kind: string; since: number; call?: Call } | undefined;

  /** Without `log`, nothing is said (a client made elsewhere: tests, the bench). */
  constructor(setting: ChatbotSetting, log: Logger | undefined) {
    this.#setting = setting;
    this.#log = log;
  }

  /**
   * A call failed: a refusal not told yet (or another than the one told) is logged, with the
   * operation that met it.
   */
  failed(error: unknown, call: Call): void {
    const problem = settingProblem(error, this.#setting);
    if (problem === undefined || problem === this.#refused?.problem) return;
    const kind = error instanceof BridgeError ? error.code : "UNEXPECTED";
    const only = error instanceof PermissionError ? { call } : {};
    this.#refused = { problem, kind, since: performance.now(), ...only };
    // The person sees why their question got no answer; the operator, who can fix it, needs
    // more than info.
    this.#log?.error({ kind, chatbot: listedChatbot(this.#setting)?.name, call }, problem);
  }

  /**
   * A `call` succeeded (an answer's header came, leads were listed): the refusal is over,
   * unless it is another operation's alone.
   */
  succeeded(call: Call): void {
    const refused = this.#refused;
    if (!refused || (refused.call !== undefined && refused.call !== call)) return;
    this.#refused = undefined;
    this.#log?.info(
      {
        kind: refused.kind,
        chatbot: listedChatbot(this.#setting)?.name,
        refusedMs: Math.round(performance.now() - refused.since),
      },
      `${chatbotInLog(this.#setting)} accepts the bot's calls again`,
    );
  }

  /** `client`, each of whose calls tells this refusal how it went. */
  watch(client: BackendClient): BackendClient {
    const outcome = <T>(call: "chat" | "leads", calling: Promise<T>): Promise<T> =>
      calling.then(
        (value) => {
          this.succeeded(call);
          return value;
        },
        (error: unknown) => {
          this.failed(error, call);
          throw error;
        },
      );
    return {
      chat: (request) => outcome("chat", client.chat(request)),
      // Accepted once the header came: what fails after it is the answer's, not the setting's.
      streamChat: (request, reader) =>
        client
          .streamChat(request, {
            header: (header) => {
              this.succeeded("chat");
              reader.header(header);
            },
            text: (text) => reader.text(text),
          })
          .catch((error: unknown) => {
            this.failed(error, "chat");
            throw error;
          }),
      leads: (query) => outcome("leads", client.leads(query)),
      close: () => client.close(),
    };
  }
}
