import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { type FakeMessage, FakeSlack } from "../support/fake-slack.ts";
import { viewMrkdwn } from "../support/fake-slack-view.ts";
import { slackEventsOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import { postSignedForm as post } from "../support/slack-events.ts";
import { blockActions } from "../support/slack-harness.ts";

const redis = await startTestRedis("lead claims across two processes");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[lead claims] skipped: no redis-server of its own");

let database = 9;
beforeEach(() => {
  database++;
});

const track = cleanupAfterEach();

/**
 * A bot on Slack over HTTP with C1 as its lead channel, on the test's Redis, with a store
 * connection and a process id of its own: one process of the deployment.
 */
async function startSlackBot(fake: FakeSlack, simulator: Simulator, pollSeconds: number) {
  const bot = trackedBot(track, {
    ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
    STORE_URL: `${redis?.url}/${database}`,
    LEADS_SLACK_CHANNELS: "C1",
    LEADS_POLL_INTERVAL: String(pollSeconds),
  });
  return { bot, events: await slackEventsOf(bot) };
}

/**
 * Two bot processes on the test's Redis (a polls for leads), and the card of a lead a
 * announced in C1, with its claim button.
 */
async function twoBotsAndACard() {
  const fake = track(await FakeSlack.start({ team: "T0FAKE" }), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 0 }), (s) => s.close());
  const a = await startSlackBot(fake, simulator, 1);
  await a.bot.logLine("first lead poll: existing leads recorded as seen, not announced");
  simulator.addLead({ name: "Dana Buyer", phone: "+1 555 0100", email: "dana@example.com" });
  const card = await until("the lead announced with its button", () =>
    [...fake.messages.values()].find((m) => m.channel === "C1" && fake.buttonsOf(m).length > 0),
  );
  const b = await startSlackBot(fake, simulator, 0);
  const claimButton = fake.buttonsOf(card)[0];
  if (!claimButton) throw new Error("no button");
  return { fake, simulator, a, b, card, claimButton };
}

/** A person presses the card's button (as it showed when `shown` was read). */
function press(
  events: string,
  card: FakeMessage,
  shown: { actionId: string; value: string },
  user: string,
  username: string,
): Promise<number> {
  const payload = blockActions({
    actionId: shown.actionId,
    value: shown.value,
    user,
    username,
    messageTs: card.ts,
  });
  return post(events, { payload: JSON.stringify(payload) });
}

const statusOf = (card: FakeMessage): string[] =>
  (card.blocks ?? []).flatMap((block) => {
    const { type, elements } = block as { type: string; elements?: { text: string }[] };
    return type === "context" ? (elements ?? []).map((e) => viewMrkdwn(e.text).visible) : [];
  });

describe.skipIf(!ownRedis)("a lead claimed across two bot processes on one Redis", () => {
  it("goes to the first of two presses at once, tells the other privately, can be released, and stays claimed after a restart", async () => {
    const { fake, simulator, a, b, card, claimButton } = await twoBotsAndACard();
    expect(claimButton.label).toBe("I'll take it");

    // Ann presses through one process, Bob through the other, at the same moment.
    const statuses = await Promise.all([
      press(a.events, card, claimButton, "U1", "ann"),
      press(b.events, card, claimButton, "U2", "bob"),
    ]);
    expect(statuses).toEqual([200, 200]);
    // Each press ends by drawing the card (the one that took the lead) or by telling its
    // presser: once there are two of those, both processes are done with their press.
    await until("both processes done with their press", () =>
      card.updates + fake.ephemerals.length >= 2 ? true : undefined,
    );
    expect(card.updates).toBe(1);
    expect(fake.ephemerals).toHaveLength(1);
    const [told] = fake.ephemerals;
    const winner = told?.user === "U1" ? "bob" : "ann";
    expect(told?.text).toMatch(new RegExp(`^@${winner} already took this lead, at .* UTC\\.$`));
    expect(statusOf(card)).toEqual([
      expect.stringMatching(new RegExp(`^Claimed by @${winner} at `)),
    ]);
    expect(fake.buttonsOf(card).map((button) => button.label)).toEqual(["Release"]);

    // The winner releases it through the other process, then takes it again.
    const winnerId = winner === "ann" ? "U1" : "U2";
    const release = fake.buttonsOf(card)[0];
    if (!release) throw new Error("no Release");
    expect(await press(b.events, card, release, winnerId, winner)).toBe(200);
    await until("the card claimable again", () => (card.updates >= 2 ? true : undefined));
    expect(statusOf(card)).toEqual([]);
    expect(fake.buttonsOf(card).map((button) => button.label)).toEqual(["I'll take it"]);
    expect(await press(a.events, card, claimButton, winnerId, winner)).toBe(200);
    await until("claimed again", () => (card.updates >= 3 ? true : undefined));

    // Both processes go; a new one knows who has the lead.
    await a.bot.stop();
    await b.bot.stop();
    const c = await startSlackBot(fake, simulator, 0);
    const loserId = winnerId === "U1" ? "U2" : "U1";
    expect(await press(c.events, card, claimButton, loserId, "someone")).toBe(200);
    await until("the late presser told", () => (fake.ephemerals.length >= 2 ? true : undefined));
    expect(fake.ephemerals[1]?.text).toMatch(new RegExp(`^@${winner} already took this lead`));
    expect(
      await post(c.events, {
        command: "/leads",
        text: "7",
        team_id: "T0FAKE",
        channel_id: "C1",
        user_id: loserId,
        user_name: "someone",
        api_app_id: "A0FAKE",
        trigger_id: "trigger-leads",
        response_url: fake.responseUrl("leads"),
      }),
    ).toBe(200);
    const listed = await until("the /leads reply", () => fake.responses[0]);
    expect(listed.text).toMatch(new RegExp(`Dana Buyer .* — claimed by @${winner} \\(`));
    // The lead's fields went to the lead channel only: no process logged them.
    for (const bot of [a.bot, b.bot, c.bot]) {
      expect(bot.stderr + bot.stdout).not.toMatch(/Dana|555 0100|dana@example/);
    }
  });

  it("tells nobody 'You already have this lead' when one press reaches both processes", async () => {
    const { fake, a, b, card, claimButton } = await twoBotsAndACard();

    // Ann's one press, delivered to each process (a retry Slack sent to the other one).
    const form = {
      payload: JSON.stringify(
        blockActions({
          actionId: claimButton.actionId,
          value: claimButton.value,
          user: "U1",
          username: "ann",
          messageTs: card.ts,
        }),
      ),
    };
    expect(await Promise.all([post(a.events, form), post(b.events, form)])).toEqual([200, 200]);
    // Each process, done with it, has drawn the card as it found the lead (taken by Ann) or
    // told Ann something.
    await until("both processes done with the press", () =>
      card.updates + fake.ephemerals.length >= 2 ? true : undefined,
    );
    expect(fake.ephemerals).toEqual([]);
    expect(statusOf(card)).toEqual([expect.stringMatching(/^Claimed by @ann at /)]);
  });
});
