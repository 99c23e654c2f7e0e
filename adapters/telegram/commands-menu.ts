import { createHash } from "node:crypto";
import type { Api } from "grammy";
import type { BotCommand, BotCommandScope } from "grammy/types";
import type { Logger } from "../../src/log.ts";
import type { KeyValueStore } from "../../src/store/types.ts";

const EVERYONE: readonly BotCommand[] = [
  { command: "help", description: "List the commands" },
  { command: "new", description: "Start a fresh conversation here" },
  { command: "language", description: "Show the answer language (admins: /language <code>)" },
  { command: "stop", description: "Stop the answer being written (reply to it in a group)" },
];

/**
 * The command menu per scope (https://core.telegram.org/bots/api#determining-list-of-commands):
 * everyone sees the everyday commands; chat administrators also see `/leads`, whose
 * subscribe and unsubscribe are theirs to use.
 */
export const COMMAND_MENU: readonly { scope: BotCommandScope; commands: readonly BotCommand[] }[] =
  [
    { scope: { type: "default" }, commands: EVERYONE },
    {
      scope: { type: "all_chat_administrators" },
      commands: [
        ...EVERYONE,
        {
          command: "leads",
          description: "List recent leads; /leads subscribe announces them here",
        },
        { command: "feedback", description: "Count the 👍 and 👎 on answers here" },
      ],
    },
  ];

/**
 * Registers the command menu only when it differs from what this bot last registered (a hash
 * kept in the store), so a restart costs no Bot API calls and cannot meet a 429 before the
 * bot answers anyone.
 */
export async function syncCommandMenu(
  api: Api,
  store: KeyValueStore,
  botId: number,
  log: Logger,
): Promise<"unchanged" | "registered"> {
  const key = `telegram:commands:${botId}`;
  const hash = createHash("sha256").update(JSON.stringify(COMMAND_MENU)).digest("hex");
  if ((await store.get<string>(key)) === hash) return "unchanged";
  for (const { scope, commands } of COMMAND_MENU) {
    await api.setMyCommands(commands, { scope });
  }
  await store.set(key, hash);
  log.info("Telegram command menu registered");
  return "registered";
}
