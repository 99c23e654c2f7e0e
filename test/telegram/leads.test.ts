import { afterEach, describe, expect, it } from "vitest";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadPoller } from "../../src/leads/lead-poller.ts";
import { createLogger } from "../../src/log.ts";
import { type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("Telegram lead announcements", () => {
  it("posts each new lead once into the lead chat, hostile fields shown literally", async () => {
    rig = await startRig({ simulator: { leads: 2 } });
    const { fake, group, harness, channel } = rig;
    const leads = new LeadPoller({
      backend: harness.backend,
      store: harness.store,
      channels: new LeadChannels(harness.store, [{ platform: "telegram", id: String(group.id) }]),
      announcers: [channel.leadAnnouncer],
      log: createLogger({ level: "silent", secrets: [] }),
      intervalMs: 60_000,
    });
    await leads.pollOnce();
    expect(fake.botMessages(group.id)).toEqual([]);

    harness.simulator.addLead({
      name: "<b>Mallory</b> & @everyone_here",
      phone: "+1 555\u202e0199",
      email: "mallory@example.com",
      remark: "<a href='https://evil.example'>click</a> **bold**",
      conversation_uid: "conv-1",
    });
    harness.simulator.addLead({ name: "Second", email: "not an <email>", remark: "r" });
    await leads.pollOnce();
    await leads.pollOnce();

    const posted = fake.botMessages(group.id);
    expect(posted).toHaveLength(2);
    const [first, second] = posted;
    expect(first?.text.split("\n")).toEqual([
      "New lead",
      "Name: <b>Mallory</b> & @\u2060everyone_here",
      "Phone: +1 5550199",
      "E-mail: mallory@example.com",
      "Remark: <a href='https://evil.example'>click</a> **bold**",
      expect.stringMatching(/^Time: [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC$/),
      "Conversation: conv-1",
    ]);
    expect(first?.entities.map((e) => e.type)).toEqual([
      "bold",
      "bold",
      "bold",
      "bold",
      "text_link",
      "bold",
      "bold",
      "bold",
      "code",
    ]);
    expect(first?.raw).toContain('<a href="mailto:mallory@example.com">');
    // An address that is not plain is shown as text, never as a link.
    expect(second?.raw).toContain("not an &lt;email&gt;");
    expect(second?.raw).not.toContain("mailto:");
  });
});
