import { readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { createFolder } from "../store/create-folder.ts";
import type { Conversation } from "./conversations.ts";

const SavedConversations = z.object({
  conversations: z.array(
    z.tuple([
      z.string(),
      z.object({
        bot: z.string().optional(),
        turns: z.number().int().positive(),
        firstQuestion: z.string(),
        previousQuestion: z.string(),
      }),
    ]),
  ),
});

/**
 * The simulator's conversations in a JSON file, so that the bot's built-in simulator still
 * knows a thread's conversation after a restart (the bot keeps the conversation_uid in its
 * store; a simulator that forgot it would answer as if asked for the first time).
 */
export class ConversationFile {
  readonly #path: string;
  readonly #onError: (error: unknown) => void;
  #latest: (() => string) | undefined;
  #writing: Promise<void> | undefined;

  constructor(path: string, onError: (error: unknown) => void) {
    this.#path = path;
    this.#onError = onError;
  }

  /** The conversations kept by an earlier run, oldest first; none when there is no file. */
  async read(): Promise<[string, Conversation][]> {
    let text: string;
    try {
      text = await readFile(this.#path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.#onError(error);
      return [];
    }
    try {
      return SavedConversations.parse(JSON.parse(text)).conversations;
    } catch (error) {
      // A damaged file costs the simulated memory only: the next answers say it was forgotten.
      this.#onError(error);
      return [];
    }
  }

  /**
   * Writes the state `snapshot` gives, after the write in progress; states that arrive
   * meanwhile are written once, as the latest of them.
   */
  save(snapshot: () => [string, Conversation][]): void {
    this.#latest = () => JSON.stringify({ conversations: snapshot() });
    this.#writing ??= this.#drain();
  }

  /** Resolves once the latest state is in the file. */
  async flush(): Promise<void> {
    await this.#writing;
  }

  async #drain(): Promise<void> {
    while (this.#latest) {
      const text = this.#latest();
      this.#latest = undefined;
      // Written aside, then renamed: a kill mid-write leaves the previous file whole.
      const aside = `${this.#path}.tmp`;
      try {
        await createFolder(dirname(this.#path));
        await writeFile(aside, text);
        await rename(aside, this.#path);
      } catch (error) {
        this.#onError(error);
      }
    }
    this.#writing = undefined;
  }
}
