import { afterEach, describe, expect, it } from "vitest";
import { type Handover, HandoverBook } from "../../src/handover/handover-book.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { readThreadContext } from "../../src/store/repositories.ts";
import type { Store } from "../../src/store/types.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const freshDir = tempDirs("handover-book-");
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function embeddedStore(): Promise<Store> {
  const store = await openEmbeddedStore({ dataDir: await freshDir() });
  stores.push(store);
  return store;
}

/** A hand-over of lead `lead` of thread `thread` in the Slack DM D1. */
function inDm(lead: string, thread: string): Handover {
  return {
    lead,
    seller: { platform: "slack", personId: "USAM", name: "@sam" },
    customer: {
      channel: "slack",
      threadKey: `slack:T1:D1:${thread}`,
      channelKey: "slack:T1:D1",
      replyPlace: { thread },
      direct: true,
    },
    card: { platform: "slack", channelId: "CSALES", message: { ts: lead } },
    sellerThread: `slack:T1:CSALES:${lead}`,
    openedAt: new Date().toISOString(),
  };
}

const ended = { at: new Date().toISOString(), name: "@sam" };

describe("the hand-overs of a direct chat", () => {
  it("cover the whole chat, one at a time: a second lead's of another thread there waits for the first to end", async () => {
    const store = await embeddedStore();
    const book = new HandoverBook(store);
    const first = inDm("a".repeat(32), "1.1");
    expect(await book.open(first)).toBe(true);
    // A new thread of the DM reads the chat's hand-over with its conversation.
    const fresh = await readThreadContext(store, "slack:T1:D1:9.9", "slack:T1:D1");
    expect(fresh.handover).toEqual({ side: "customer", lead: first.lead });

    const second = inDm("b".repeat(32), "2.2");
    expect(await book.open(second)).toEqual({ refused: "busy", with: first });
    // The refused open left nothing of its own: its thread reads the chat's, the first lead's.
    expect(
      (await readThreadContext(store, second.customer.threadKey, "slack:T1:D1")).handover,
    ).toEqual({ side: "customer", lead: first.lead });

    expect(await book.end(first, ended)).toBe(true);
    expect(await book.end(first, ended)).toBe(false);
    expect((await readThreadContext(store, "slack:T1:D1:9.9", "slack:T1:D1")).handover).toBe(
      undefined,
    );
    expect(await book.open(second)).toBe(true);
    expect(await book.side({ threadKey: "slack:T1:D1:9.9", channelKey: "slack:T1:D1" })).toEqual({
      side: "customer",
      lead: second.lead,
    });
  });
});
