import { afterEach, describe, expect, it } from "vitest";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadPoller } from "../../src/leads/lead-poller.ts";
import { createLogger } from "../../src/log.ts";
import { viewMrkdwn } from "../support/fake-slack-view.ts";
import { type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface PostedLead {
  text: string;
  blocks: { type: string; text?: { text: string }; fields?: { text: string }[] }[];
}

describe("Slack lead announcements", () => {
  it("posts each new lead once as Block Kit, hostile fields shown literally", async () => {
    harness = await startSlackHarness({ simulator: { leads: 2 } });
    const { fake, simulator, store, channel } = harness;
    const leads = new LeadPoller({
      backend: harness.backend,
      store,
      channels: new LeadChannels(store, [{ platform: "slack", id: "C1" }]),
      announcers: [channel.leadAnnouncer],
      log: createLogger({ level: "silent", secrets: [] }),
      intervalMs: 60_000,
    });
    await leads.pollOnce();
    simulator.addLead({
      name: "<!channel> *Mallory* <@U1>",
      phone: "+1 555\u202e0199",
      email: "mallory@example.com",
      remark: "<https://evil.example|your bank> &amp; `code`",
      conversation_uid: "conv-1",
    });
    await leads.pollOnce();
    await leads.pollOnce();

    const posts = fake.calls.filter(
      (c) => c.method === "chat.postMessage" && c.args.channel === "C1",
    );
    expect(posts).toHaveLength(1);
    const posted = posts[0]?.args as unknown as PostedLead;
    expect(posted.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "New lead" },
    });
    const fields = (posted.blocks[1]?.fields ?? []).map((f) => viewMrkdwn(f.text));
    expect(fields.flatMap((f) => f.pings)).toEqual([]);
    expect(fields.flatMap((f) => f.disguised)).toEqual([]);
    const visible = fields.map((f) => f.visible.replaceAll("\u200b", ""));
    expect(visible.slice(0, 4)).toEqual([
      "*Name*\n<!channel> *Mallory* <@U1>",
      "*Phone*\n+1 5550199",
      "*E-mail*\nmallory@example.com",
      "*Remark*\n<https://evil.example|your bank> &amp; `code`",
    ]);
    expect(viewMrkdwn(posted.text).pings).toEqual([]);
  });
});
