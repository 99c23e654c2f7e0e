// What the hand-over suites share: a bot on Slack and Telegram whose leads go to #sales, and
// the presses and messages a seller and a customer make there.
import { expect } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { type FakeMessage, FakeSlack } from "./fake-slack.ts";
import { viewMarkdown, viewMarkdownBlock, viewMrkdwn } from "./fake-slack-view.ts";
import { type FakeTelegram, startFakeTelegram } from "./fake-telegram.ts";
import { httpOf, trackedBot } from "./in-process-bot.ts";
import { slackBotEnv, type Track, telegramBotEnv } from "./process-test.ts";
import { until } from "./run-bot.ts";
import { blockActions, eventEnvelope, signedJsonHeaders } from "./slack-events.ts";
import { message } from "./slack-harness.ts";

export const CHANNELS = {
  C1: { type: "channel", name: "support" },
  CSALES: { type: "channel", name: "sales" },
} as const;
export const USERS = {
  U1: {},
  USAM: { name: "Sam" },
  UBOB: { name: "Bob" },
  UADMIN: { isAdmin: true },
};

/** What a person reads of a Slack message, whichever form the bot sent it in. */
export function seen(m: FakeMessage): string {
  if (m.markdown !== undefined) return viewMarkdownBlock(m.markdown).visible;
  return (m.format === "markdown" ? viewMarkdown(m.text) : viewMrkdwn(m.text)).visible;
}

/** Posts a Slack event or a press to a bot's events endpoint. */
export async function deliver(events: string, body: Record<string, unknown>): Promise<void> {
  const press = body.type === "block_actions";
  const payload = press
    ? new URLSearchParams({ payload: JSON.stringify(body) }).toString()
    : JSON.stringify(eventEnvelope(body));
  const headers = {
    ...signedJsonHeaders(payload),
    ...(press ? { "content-type": "application/x-www-form-urlencoded" } : {}),
  };
  const response = await fetch(events, { method: "POST", headers, body: payload });
  expect(response.status).toBe(200);
}

/** What a Slack lead card shows: its status line and its buttons' labels. */
export function slackCard(slack: FakeSlack, card: FakeMessage) {
  const status = (card.blocks ?? []).flatMap((block) => {
    const { type, elements } = block as { type: string; elements?: { text: string }[] };
    return type === "context" ? (elements ?? []).map((e) => e.text) : [];
  });
  return { status: status.join(" "), buttons: slack.buttonsOf(card).map((b) => b.label) };
}

/** Presses the button labelled `label` on a Slack card, as `user`. */
export async function pressInSlack(
  events: string,
  slack: FakeSlack,
  card: FakeMessage,
  label: string,
  user: string,
) {
  const button = slack.buttonsOf(card).find((b) => b.label === label);
  if (!button)
    throw new Error(`no ${label} on the card: ${JSON.stringify(slackCard(slack, card))}`);
  await deliver(
    events,
    blockActions({
      actionId: button.actionId,
      value: button.value,
      user,
      username: user.slice(1).toLowerCase(),
      channel: card.channel,
      messageTs: card.ts,
    }),
  );
}

/** `user` writes `text` in a Slack card's thread: Slack keeps it, and the bot hears of it. */
export async function writeUnderCard(
  events: string,
  slack: FakeSlack,
  card: FakeMessage,
  at: { ts: string; user: string },
  text: string,
): Promise<void> {
  slack.personWrote({ channel: card.channel, ts: at.ts, threadTs: card.ts, user: at.user, text });
  await deliver(events, message(text, { ...at, channel: card.channel, threadTs: card.ts }));
}

/** The questions the chatbot received, with the conversation each continued. */
export function asked(simulator: {
  requests: readonly { chat?: { q: string; conversationUid?: string } | undefined }[];
}) {
  return simulator.requests.flatMap((r) =>
    r.chat ? [{ q: r.chat.q, conversationUid: r.chat.conversationUid }] : [],
  );
}

/** A bot on Telegram and Slack whose leads go to the Slack channel #sales. */
export async function salesInSlack(
  track: Track,
  env: Record<string, string> = {},
  adjust?: Parameters<typeof trackedBot>[2],
) {
  const slack = track(await FakeSlack.start({ channels: CHANNELS, users: USERS }), (f) =>
    f.close(),
  );
  const telegram = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
  const bot = trackedBot(
    track,
    {
      ...telegramBotEnv(telegram, simulator),
      ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
      LEADS_SLACK_CHANNELS: "CSALES",
      LEADS_POLL_INTERVAL: "3600",
      LEADS_AFTER_ANSWER_S: "1",
      ...env,
    },
    adjust,
  );
  const events = `${await httpOf(bot)}/slack/events`;
  await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
  const carl = telegram.user(2001, "Carl");
  telegram.addChat({ id: carl.id, type: "private", first_name: "Carl" });
  const toCarl = () => telegram.botMessages(carl.id).map((m) => m.text);
  return { slack, telegram, simulator, bot, events, carl, toCarl };
}

/** The lead's card in #sales, once it shows, taken by Sam: it offers Talk to them. */
export async function cardClaimedBySam(events: string, slack: FakeSlack): Promise<FakeMessage> {
  const card = await until("the card in #sales", () =>
    [...slack.messages.values()].find((m) => m.channel === "CSALES" && m.byBot && !m.threadTs),
  );
  await pressInSlack(events, slack, card, "I'll take it", "USAM");
  await until("Talk to them on the claimed card", () =>
    slackCard(slack, card).buttons.includes("Talk to them") ? true : undefined,
  );
  return card;
}

/** Carl leaves a lead in his private chat; Sam takes it on the card in #sales. */
export async function claimedBySam(setUp: Awaited<ReturnType<typeof salesInSlack>>) {
  const { slack, telegram, events, carl } = setUp;
  telegram.write({ chat: carl.id, from: carl, text: "please call me back #lead" });
  return cardClaimedBySam(events, slack);
}

/** The button labelled `label` on a Telegram card, pressed by `from`. */
export function pressInTelegram(
  telegram: FakeTelegram,
  chat: number,
  card: { message_id: number },
  label: string,
  from: ReturnType<FakeTelegram["user"]>,
) {
  const shown = telegram.message(chat, card.message_id);
  const button = shown?.replyMarkup?.inline_keyboard.flat().find((b) => b.text === label);
  if (!button?.callback_data) throw new Error(`no ${label} on the card: ${shown?.text}`);
  telegram.press({ chat, messageId: card.message_id, from, data: button.callback_data });
}

export const labels = (telegram: FakeTelegram, chat: number, id: number) =>
  (telegram.message(chat, id)?.replyMarkup?.inline_keyboard.flat() ?? []).map((b) => b.text);
