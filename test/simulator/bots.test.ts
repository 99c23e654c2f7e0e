import { describe, expect, it } from "vitest";
import { auth, chatPath, getJson, leadsPath, simulator } from "./helpers.ts";

async function ask(url: string, bot: string, q: string, conversationUid?: string) {
  const response = await fetch(`${url}${chatPath(bot)}`, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    body: JSON.stringify({ q, conversation_uid: conversationUid }),
  });
  const { data } = (await response.json()) as {
    data: { answer: string; conversation_uid: string };
  };
  return data;
}

describe("simulator: several chatbots (SIMULATOR_BOTS)", () => {
  it("serves each bot_uid with answers that name it, and conversations of its own", async () => {
    const sim = await simulator({ bots: ["sim-support", "sim-sales"] });
    expect(sim.botUid).toBe("sim-support");
    expect(sim.bots).toEqual(["sim-support", "sim-sales"]);
    const support = await ask(sim.url, "sim-support", "hello");
    expect(support.answer).toContain("**This is the simulated chatbot `sim-support`.**");
    const sales = await ask(sim.url, "sim-sales", "hello");
    expect(sales.answer).toContain("**This is the simulated chatbot `sim-sales`.**");

    // A conversation belongs to the bot that began it: another bot does not know it.
    const again = await ask(sim.url, "sim-support", "and then?", support.conversation_uid);
    expect(again.answer).toContain("This is question 2 in our conversation.");
    const elsewhere = await ask(sim.url, "sim-sales", "and then?", support.conversation_uid);
    expect(elsewhere.answer).toContain("I do not know that conversation");
    expect((await getJson(sim, leadsPath("sim-bot"))).status).toBe(404);
  });

  it("keeps each bot's leads apart, under its bot_uid", async () => {
    const sim = await simulator({ bots: ["sim-support", "sim-sales"], leads: 2 });
    sim.addLead({ bot_uid: "sim-sales", name: "Sally" });
    expect(sim.leadCount("sim-support")).toBe(2);
    expect(sim.leadCount("sim-sales")).toBe(3);
    const sales = await getJson(sim, `${leadsPath("sim-sales")}?page_size=10`);
    expect(sales.body.data.leads.map((lead: { name: string }) => lead.name)).toEqual([
      "Sally",
      "Lead 2",
      "Lead 1",
    ]);
    expect(new Set(sales.body.data.leads.map((lead: { bot_uid: string }) => lead.bot_uid))).toEqual(
      new Set(["sim-sales"]),
    );
  });
});
