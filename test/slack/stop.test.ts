import { afterEach, describe, expect, it } from "vitest";
import { type HeldBackend, startHeldBackend } from "../support/held-backend.ts";
import {
  mention,
  message,
  type SlackHarness,
  type SlackHarnessOptions,
  startSlackHarness,
} from "../support/slack-harness.ts";
import { waitFor } from "./wait.ts";

let h: SlackHarness | undefined;
let backend: HeldBackend | undefined;
afterEach(async () => {
  await h?.close();
  await backend?.close();
  h = undefined;
  backend = undefined;
});

async function start(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  backend = await startHeldBackend();
  h = await startSlackHarness({
    backend,
    fake: { users: { U1: {}, U2: {}, UADMIN: { isAdmin: true } } },
    ...options,
    slack: { nativeStreaming: false, ...options.slack },
  });
  return h;
}

/** A question by U1 whose answer is on screen and still streaming. */
async function streaming(harness: SlackHarness): Promise<string> {
  const ts = harness.nextTs();
  void harness.sendEvent(mention("weather", { ts, user: "U1" }));
  await waitFor(
    () => harness.fake.thread("C1", ts)[0]?.text.startsWith("Answer to weather"),
    "the answer streaming",
  );
  return ts;
}

/** `@bot stop` typed in the thread by `user`, whose profile carries `name`. */
function stopBy(user: string, threadTs: string, ts: string, name: string) {
  return { ...mention("stop", { ts, user, threadTs }), user_profile: { display_name: name } };
}

describe("stopping an answer", () => {
  it("stops at the asker's word: the request closed, the text kept, the note shown, the conversation goes on", async () => {
    const harness = await start();
    const held = backend as HeldBackend;
    const ts = await streaming(harness);
    await harness.sendEvent(stopBy("U1", ts, harness.nextTs(), "Ann <@here> & co"));
    await harness.settle();

    expect(held.dropped).toEqual(["weather"]);
    expect(held.open).toBe(0);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by Ann &lt;@here&gt; &amp; co",
    ]);
    expect(harness.fake.ephemerals).toEqual([]);

    held.releaseAll();
    await harness.sendEvent(message("and tomorrow?", { ts: harness.nextTs(), threadTs: ts }));
    await harness.settle();
    expect(held.conversations).toEqual([undefined, "conv-1"]);
  });

  it("refuses another member privately and lets the answer go on", async () => {
    const harness = await start();
    const held = backend as HeldBackend;
    const ts = await streaming(harness);
    await harness.sendEvent(stopBy("U2", ts, harness.nextTs(), "Bob"));
    await waitFor(() => harness.fake.ephemerals.length > 0, "the refusal");
    expect(harness.fake.ephemerals).toEqual([
      {
        channel: "C1",
        user: "U2",
        threadTs: expect.any(String),
        text: "Only the person who asked or an admin of this channel can stop this answer.",
      },
    ]);
    expect(held.open).toBe(1);
    held.releaseAll();
    await harness.settle();
    expect(held.dropped).toEqual([]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual(["Answer to weather."]);
  });

  it("lets a workspace admin stop someone else's answer", async () => {
    const harness = await start();
    const held = backend as HeldBackend;
    const ts = await streaming(harness);
    await harness.sendEvent(stopBy("UADMIN", ts, harness.nextTs(), "Admin"));
    await harness.settle();
    expect(held.dropped).toEqual(["weather"]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by Admin",
    ]);
  });

  it("says privately when nothing is being written in the thread", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    await harness.sendEvent(stopBy("U1", ts, ts, "Ann"));
    await harness.settle();
    expect(harness.fake.ephemerals.map((e) => e.text)).toEqual([
      "Nothing to stop: no answer is being written in this thread.",
    ]);
  });
});
