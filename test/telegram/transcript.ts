/**
 * Prints one streamed answer in a group as a person sees it, with the production defaults
 * (edits every 3 s in groups, 20 messages a minute per group, the simulator's own chunk
 * timing) against the fake Bot API and its unscaled flood limits:
 *
 *   npx tsx test/telegram/transcript.ts                     (a group: send, then edits)
 *   npx tsx test/telegram/transcript.ts --private           (a private chat: the same)
 *   npx tsx test/telegram/transcript.ts --private --drafts  (drafts, then one send)
 *   npx tsx test/telegram/transcript.ts --rich              (TELEGRAM_RICH_MESSAGES=on:
 *                                                            rich messages)
 */
import { Writable } from "node:stream";
import { createTelegramChannel } from "../../adapters/telegram/index.ts";
import { createLogger } from "../../src/log.ts";
import { startHarness } from "../support/bridge-harness.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";

const fake = await startFakeTelegram();
const harness = await startHarness({ simulator: { chunkDelayMs: [10, 60], chunkChars: [2, 16] } });
const channel = createTelegramChannel({
  botToken: fake.token,
  apiRoot: fake.url,
  bridge: harness.bridge,
  store: harness.store,
  log: createLogger({
    level: "silent",
    secrets: [],
    destination: new Writable({ write: (_c, _e, d) => d() }),
  }),
  polling: { timeoutSeconds: 1 },
  drafts: process.argv.includes("--drafts"),
  richMessages: process.argv.includes("--rich"),
});
const alice = fake.user(1001, "Alice", "alice_example");
const inPrivate = process.argv.includes("--private");
const group = inPrivate
  ? fake.addChat({ id: alice.id, type: "private", first_name: "Alice" })
  : fake.addChat({ id: -1001, type: "supergroup", title: "Team" }, { [alice.id]: "member" });
await channel.start();

const asked = performance.now();
const update = fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot what can you do?" });
while (!fake.callsTo("getUpdates").some((c) => Number(c.params.offset ?? 0) > update.update_id)) {
  await new Promise((resolve) => setTimeout(resolve, 5));
}
await channel.settled();

const at = (ms: number) => `${((ms - asked) / 1000).toFixed(2).padStart(6)} s`;
// The same call in either form: a rich message's (Bot API 10.1) or an HTML one's.
const kindOf = (method: string) => method.replace("Rich", "");
const ofKind = (kind: string) =>
  fake.calls.filter((c) => Number(c.params.chat_id) === group.id && kindOf(c.method) === kind);
const frames = [...fake.draftFrames(group.id).values()].flat();
let frame = 0;
process.stdout.write(`${at(asked)}  Alice: @ChatBridgeBot what can you do?\n`);
for (const call of fake.calls) {
  if (Number(call.params.chat_id) !== group.id) continue;
  const kind = kindOf(call.method);
  if (kind === "sendChatAction") {
    process.stdout.write(`${at(call.at)}  (Chat Bridge is typing…)\n`);
    continue;
  }
  if (kind === "sendMessageDraft") {
    if (!call.ok) continue;
    process.stdout.write(`${at(call.at)}  ${call.method} (a preview that grows):\n`);
    const preview = frames[frame++]?.text ?? "";
    process.stdout.write(`${preview.replace(/^/gm, "          │ ")}\n`);
    continue;
  }
  if (kind !== "sendMessage" && kind !== "editMessageText") continue;
  const [message] = fake.botMessages(group.id);
  const index = ofKind(kind).indexOf(call);
  const shown = kind === "sendMessage" ? message?.history[0] : message?.history[index + 1];
  const quoting = message?.replyTo === undefined ? "" : " (replying to Alice)";
  const label = kind === "sendMessage" ? `${call.method}${quoting}` : call.method;
  process.stdout.write(
    `${at(call.at)}  ${label}${call.ok ? "" : ` FAILED ${call.description}`}:\n`,
  );
  process.stdout.write(`${(shown ?? "").replace(/^/gm, "          │ ")}\n`);
}
const sends = ofKind("sendMessage");
const edits = ofKind("editMessageText");
const drafts = ofKind("sendMessageDraft");
const firstText = Math.min(sends[0]?.at ?? Infinity, drafts[0]?.at ?? Infinity);
const last = [...sends, ...edits].at(-1)?.at ?? asked;
process.stdout.write(
  `\nmessages: ${sends.length}, drafts: ${drafts.length}, edits: ${edits.length}, 429s: ${fake.floodErrors}, ` +
    `first text after ${Math.round(firstText - asked)} ms, complete after ${Math.round(last - asked)} ms\n`,
);
await channel.stop();
await fake.close();
await harness.close();
