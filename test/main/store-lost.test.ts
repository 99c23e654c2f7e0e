import { afterAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { httpOf, slackEventsOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { logEntries, until } from "../support/run-bot.ts";
import { adminCommand, deliverEvent, mention, message } from "../support/slack-harness.ts";

const redis = await startTestRedis("a bot on a Redis that lost its data");
afterAll(() => redis?.close());
// The test restarts the server empty: it needs one of its own.
const server = redis?.server;
if (redis && !server) console.warn("[store lost] skipped: no redis-server of its own");

const track = cleanupAfterEach();
const STORE_LOST =
  "the store lost its data (Redis restarted empty, or a failover to an empty replica): languages, chatbot choices, lead claims and what no running process held are gone; this process wrote back the lead channels, lead polls, conversations and threads it held";

/** An admin's `/leads …` in `channel`. */
const command = (events: string, fake: FakeSlack, text: string, channel: string) =>
  adminCommand(events, fake, "/leads", text, channel);

async function deliver(events: string, event: Record<string, unknown>): Promise<void> {
  expect(await deliverEvent(events, event)).toBe(200);
}

/** The names on the lead cards in a channel, in order. */
const cardsIn = (fake: FakeSlack, channel: string) =>
  [...fake.messages.values()]
    .filter((m) => m.channel === channel && m.text.startsWith("New lead"))
    .map((m) => m.text.replace(/^New lead: /, ""));

/** Each question the chatbot was asked, with the conversation it came in. */
const asked = (simulator: Simulator) =>
  simulator.requests.flatMap((r) => (r.chat ? [[r.chat.q, r.chat.conversationUid]] : []));

describe.skipIf(!server)("one bot on a Redis restarted empty", { timeout: 120_000 }, () => {
  it("says so in one error line with a metric, and writes back what it held: no lead missed, every lead channel kept, its threads and conversations go on", async () => {
    const fake = track(
      await FakeSlack.start({
        team: "T0FAKE",
        users: { U1: {}, UADMIN: { isAdmin: true } },
        channels: {
          C1: { type: "channel" },
          C2: { type: "channel" },
          C3: { type: "channel" },
          D1: { type: "im" },
        },
      }),
      (f) => f.close(),
    );
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 2 }), (s) => s.close());
    const env = {
      ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
      STORE_URL: redis?.url ?? "",
      LEADS_POLL_INTERVAL: "1",
      // The presence is renewed, and a loss of the data noticed, every half second.
      TAKEOVER_MS: "1500",
    };
    const bot = trackedBot(track, env);
    const events = await slackEventsOf(bot);
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced");

    // Two lead channels; a channel thread and a DM thread the bot answers, each with its
    // conversation.
    expect(await command(events, fake, "subscribe", "C1")).toBe(200);
    expect(await command(events, fake, "subscribe", "C2")).toBe(200);
    await until("both subscribed", () => (fake.responses.length >= 2 ? true : undefined));
    const thread = "1700000100.000100";
    const dm = "1700000100.000200";
    const answers = (channel: string, ts: string) =>
      fake.thread(channel, ts).filter((m) => m.user !== "U1").length;
    await deliver(events, mention("first question", { ts: thread, channel: "C3" }));
    await deliver(events, message("first dm", { ts: dm, channel: "D1" }));
    await until("both answered", () =>
      answers("C3", thread) >= 1 && answers("D1", dm) >= 1 ? true : undefined,
    );
    // In the thread it answers, the bot answers without a mention.
    await deliver(
      events,
      message("second question", { ts: "1700000101.0001", channel: "C3", threadTs: thread }),
    );
    await deliver(
      events,
      message("second dm", { ts: "1700000101.0002", channel: "D1", threadTs: dm }),
    );
    await until("both answered again", () =>
      answers("C3", thread) >= 2 && answers("D1", dm) >= 2 ? true : undefined,
    );
    const conversation = new Map(asked(simulator) as [string, string | undefined][]);
    expect(conversation.get("second question")).toBeDefined();
    expect(conversation.get("second dm")).toBeDefined();

    // Redis restarts without its data; a lead comes in meanwhile.
    await server?.stop();
    simulator.addLead({ name: "Wendy Wipe", email: "wendy@example.com" });
    await server?.start();
    await bot.logLine({ msg: STORE_LOST }, 15_000);

    // The lead of the wipe, and one after it, reach both lead channels; nothing older does.
    await until("the lead of the wipe in both lead channels", () =>
      cardsIn(fake, "C1").length > 0 && cardsIn(fake, "C2").length > 0 ? true : undefined,
    );
    simulator.addLead({ name: "Nina Next" });
    await until("the next lead in both lead channels", () =>
      cardsIn(fake, "C1").length > 1 && cardsIn(fake, "C2").length > 1 ? true : undefined,
    );
    expect(cardsIn(fake, "C1")).toEqual(["Wendy Wipe", "Nina Next"]);
    expect(cardsIn(fake, "C2")).toEqual(["Wendy Wipe", "Nina Next"]);
    // `/leads` still answers there.
    expect(await command(events, fake, "", "C1")).toBe(200);
    const listing = await until("the listing", () => fake.responses[2]?.text);
    expect(listing).toContain("Wendy Wipe");

    // The thread is still answered without a mention, and both conversations go on.
    await deliver(
      events,
      message("third question", { ts: "1700000102.0001", channel: "C3", threadTs: thread }),
    );
    await deliver(
      events,
      message("third dm", { ts: "1700000102.0002", channel: "D1", threadTs: dm }),
    );
    await until("both answered after the wipe", () =>
      answers("C3", thread) >= 3 && answers("D1", dm) >= 3 ? true : undefined,
    );
    const after = new Map(asked(simulator) as [string, string | undefined][]);
    expect(after.get("third question")).toBe(conversation.get("second question"));
    expect(after.get("third dm")).toBe(conversation.get("second dm"));

    // One error line for the loss (beside the outage's own while Redis restarted), counted; no
    // lead data in the log.
    const metrics = await (await fetch(`${await httpOf(bot)}/metrics`)).text();
    expect(metrics).toMatch(/^chatbot_bridge_store_data_lost_total 1$/m);
    const errors = logEntries(bot.stderr).filter(
      (entry) => entry.level >= 50 && entry.msg !== "store unreachable; retrying in the background",
    );
    expect(errors.map((e) => e.msg)).toEqual([STORE_LOST]);
    expect(errors[0]?.writtenBack).toMatchObject({
      "lead channels": 2,
      conversations: 2,
      "Slack threads answered": 1,
      "lead poll of default": expect.any(Number),
    });
    expect(bot.stderr + bot.stdout).not.toMatch(/Wendy|Nina|wendy@/);
  });
});
