import { describe, expect, it } from "vitest";
import {
  auth,
  chat,
  chatJson,
  chatPath,
  DELIMITER,
  getJson,
  leadsPath,
  readChunks,
  STREAM_DELIMITER,
  simulator,
} from "./helpers.ts";

describe("simulator: the server", () => {
  it("listens on 127.0.0.1 with the documented defaults", async () => {
    const sim = await simulator();
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
    expect(sim.apiKey).toBe("sim-key");
    expect(sim.botUid).toBe("sim-bot");
    expect(STREAM_DELIMITER).toBe(DELIMITER);
  });

  it("answers 401 with an envelope when the key is missing, wrong or not a bearer", async () => {
    const sim = await simulator();
    for (const headers of [
      {},
      auth("wrong"),
      { authorization: "sim-key" },
      { authorization: "Basic sim-key" },
    ]) {
      const reply = await getJson(sim, leadsPath(), headers);
      expect(reply.status).toBe(401);
      expect(reply.body.code).toBe(401);
      expect(reply.body.data).toEqual({});
      expect(reply.body.msg).toBe("authentication failed: send Authorization: Bearer <API key>");
    }
    const chatReply = await chat(
      sim,
      { q: "hi" },
      { headers: { "content-type": "application/json" } },
    );
    expect(chatReply.status).toBe(401);
  });

  it("accepts the bearer scheme in any case, and a changed key from then on", async () => {
    const sim = await simulator({ apiKey: "k-1" });
    expect((await getJson(sim, leadsPath(), { authorization: "bearer k-1" })).status).toBe(200);
    sim.setApiKey("k-2");
    expect((await getJson(sim, leadsPath(), auth("k-1"))).status).toBe(401);
    expect((await getJson(sim, leadsPath(), auth("k-2"))).status).toBe(200);
  });

  it("answers 404 for an unknown path and an unknown bot, 405 for a wrong method", async () => {
    const sim = await simulator();
    const unknownPath = await getJson(sim, "/api/v1/backend/chatbot/sim-bot/nope");
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.body).toMatchObject({ code: 404, data: {}, msg: "path not found" });
    expect((await getJson(sim, "/api/v2/backend/chatbot/sim-bot/leads")).status).toBe(404);
    expect((await getJson(sim, `${leadsPath()}/`)).status).toBe(404);

    const unknownBot = await getJson(sim, leadsPath("other-bot"));
    expect(unknownBot.status).toBe(404);
    expect(unknownBot.body).toMatchObject({ code: 404, msg: "chatbot not found" });
    const chatOther = await fetch(`${sim.url}${chatPath("other-bot")}`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ q: "hi" }),
    });
    expect(chatOther.status).toBe(404);

    const wrongMethod = await getJson(sim, chatPath());
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
  });

  it("answers 403 to chat without a paid plan, while leads still work", async () => {
    const sim = await simulator({ paidPlan: false });
    const refused = await chatJson(sim, { q: "hi" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 403,
      data: {},
      msg: "no permission: chat needs a paid subscription",
    });
    expect((await getJson(sim, leadsPath())).status).toBe(200);
    sim.setPaidPlan(true);
    expect((await chatJson(sim, { q: "hi" })).status).toBe(200);
  });

  it("puts a unique request_id in every envelope and in x-request-id", async () => {
    const sim = await simulator();
    const first = await getJson(sim, leadsPath());
    const second = await chatJson(sim, { q: "hi" });
    expect(Object.keys(first.body).sort()).toEqual(["code", "data", "msg", "request_id"]);
    expect(Object.keys(second.body).sort()).toEqual(["code", "data", "msg", "request_id"]);
    expect(first.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.body.request_id).not.toBe(second.body.request_id);
    expect(first.headers.get("x-request-id")).toBe(first.body.request_id);
  });

  it("names the text field `message` when asked to", async () => {
    const sim = await simulator({ envelopeTextField: "message" });
    const reply = await getJson(sim, leadsPath());
    expect(Object.keys(reply.body).sort()).toEqual(["code", "data", "message", "request_id"]);
    expect(reply.body.message).toBe("success");
  });

  it("logs requests without their key and counts hits per path", async () => {
    const sim = await simulator();
    await getJson(sim, `${leadsPath()}?page=2`);
    await chatJson(sim, { q: "hello", language: "de", stream: false });
    await getJson(sim, "/nowhere", {});
    expect(sim.hits(leadsPath())).toBe(1);
    expect(sim.hits(chatPath())).toBe(1);
    expect(sim.hits()).toBe(3);
    const [leads, chatCall, stray] = sim.requests;
    expect(leads).toMatchObject({
      method: "GET",
      route: "leads",
      status: 200,
      query: { page: "2" },
    });
    expect(chatCall?.chat).toEqual({
      q: "hello",
      conversationUid: undefined,
      language: "de",
      stream: false,
    });
    expect(stray).toMatchObject({ authorized: false, status: 401, outcome: "completed" });
    expect(JSON.stringify(sim.requests)).not.toContain("sim-key");
    sim.clearRequests();
    expect(sim.requests).toEqual([]);
    expect(sim.hits()).toBe(0);
  });

  it("closes promptly with a stalled stream open", async () => {
    const sim = await simulator();
    const res = await chat(sim, { q: "wait #stall", stream: true });
    const reading = readChunks(res);
    await expect.poll(() => sim.openResponses()).toBe(1);
    const started = Date.now();
    await sim.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    const { error } = await reading;
    expect(error).toBeDefined();
  });
});
