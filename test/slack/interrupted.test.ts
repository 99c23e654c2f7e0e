import { afterEach, describe, expect, it } from "vitest";
import { createSlackChannel } from "../../adapters/slack/index.ts";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import type { AnswerJournal } from "../../src/journal/answer-journal.ts";
import { createLogger } from "../../src/log.ts";
import type { Store } from "../../src/store/types.ts";
import type { FakeSlack } from "../support/fake-slack.ts";
import { viewMarkdown } from "../support/fake-slack-view.ts";
import { journalRuns, recordingReads, settledJournal, testJournal } from "../support/journal.ts";
import {
  mention,
  SIGNING_SECRET,
  SLACK_EDIT_INTERVAL_MS,
  type SlackHarness,
  startSlackHarness,
} from "../support/slack-harness.ts";

const CUT = "⚠️ answer cut off: interrupted";
const silent = createLogger({ level: "silent", secrets: [] });
/** The one answer journaled, quiet for ten of its edit intervals: all it had was shown. */
const JOURNAL_SETTLED = { count: 1, quietMs: 10 * SLACK_EDIT_INTERVAL_MS };

let harness: SlackHarness | undefined;
afterEach(async () => {
  // The abandoned answer ends now; the test has seen what it needed.
  await harness?.simulator.close();
  await harness?.settle();
  await harness?.close();
  harness = undefined;
});

describe("Slack answers cut by a kill", () => {
  it.each([
    { streaming: true, how: "a native stream is ended with the note appended" },
    { streaming: false, how: "a posted message is updated" },
  ])("are finished by the next start: $how", async ({ streaming }) => {
    const { fake, store, ts, runId } = await stalledAnswer(streaming);
    // The process "dies" here: the answer stops half-way, its stream never stopped.
    const [before] = fake.thread("C1", ts);
    expect(before?.stream).toBe(streaming ? "streaming" : "none");
    const shown = before?.text ?? "";
    expect(shown).not.toContain("⚠️");

    const channel = reopeningChannel(fake, store);
    const reading = recordingReads(store);
    const next = testJournal(reading.store);
    expect(await next.recover([channel])).toBe(1);
    const [entry] = reading.read;

    const [after] = fake.thread("C1", ts);
    expect(fake.thread("C1", ts)).toHaveLength(1);
    expect(after?.ts).toBe(before?.ts);
    if (streaming) {
      // All the stream showed stays, the note appended as it ends: nothing taken back.
      expect(after?.stream).toBe("stopped");
      const text = after?.text ?? "";
      expect(text.startsWith(shown)).toBe(true);
      expect(viewMarkdown(text.slice(shown.length)).visible).toBe(CUT);
    } else {
      expect(after?.format).toBe("mrkdwn");
      const markdown = entry?.messages[0]?.markdown ?? "";
      expect(markdown).not.toBe("");
      expect(after?.text).toBe(`${renderMrkdwn(markdown)}\n\n${CUT}`);
    }
    expect(await journalRuns(store)).not.toContain(runId);
  });

  it("notes the cut below a stream Slack ended itself, leaving what it showed", async () => {
    const { fake, store, ts } = await stalledAnswer(true);
    const shown = fake.thread("C1", ts)[0]?.text;
    fake.failNext("chat.stopStream", "message_not_in_streaming_state");
    const channel = reopeningChannel(fake, store);
    expect(await testJournal(store).recover([channel])).toBe(1);
    const messages = fake.thread("C1", ts);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.text).toBe(shown);
    expect(messages[1]?.text).toBe(CUT);
  });

  it("notes the cut below a message Slack will not let the bot edit", async () => {
    const { fake, store, ts } = await stalledAnswer(false);
    fake.failNext("chat.update", "cant_update_message");
    const channel = reopeningChannel(fake, store);
    expect(await testJournal(store).recover([channel])).toBe(1);
    const messages = fake.thread("C1", ts);
    expect(messages).toHaveLength(2);
    expect(messages[1]?.text).toBe(CUT);
  });
});

/**
 * An answer that stalls half-way (`#stall`) in a thread, streamed natively or not, once its
 * journal record holds all it showed: the moment a kill would leave it.
 */
async function stalledAnswer(streaming: boolean) {
  let journal: AnswerJournal | undefined;
  harness = await startSlackHarness({
    simulator: { chunkDelayMs: 2 },
    fake: { streaming },
    journal: (store) => {
      journal = testJournal(store, { updateIntervalMs: 20 });
      return journal;
    },
  });
  const { fake, store } = harness;
  const runId = journal?.runId ?? "";
  const ts = harness.nextTs();
  await harness.sendEvent(mention("tell me everything #stall", { ts }));
  await settledJournal(store, runId, JOURNAL_SETTLED);
  return { fake, store, ts, runId };
}

/** The Slack channel a restarted process makes, used here only to finish journaled answers. */
function reopeningChannel(fake: FakeSlack, store: Store) {
  return createSlackChannel({
    botToken: fake.options.botToken,
    signingSecret: SIGNING_SECRET,
    apiUrl: fake.apiUrl,
    bridge: {
      handle: async () => undefined,
      receive: () => ({ accepted: Promise.resolve(false), done: Promise.resolve() }),
      stopInThread: async () => "none",
    },
    store,
    log: silent,
  });
}
