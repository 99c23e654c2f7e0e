import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../adapters/telegram/render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { answered, firstAnswer, type Rig, refusedCalls, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const chatRequests = (r: Rig) => r.harness.simulator.requests.filter((q) => q.route === "chat");

describe("Telegram groups without topics: reply chains", () => {
  it("answers a mention in place, continues on a reply to the bot, and ignores the rest", async () => {
    rig = await startRig({ simulator: { chunkDelayMs: 2 } });
    const { fake, alice, bob, group } = rig;

    const mention = fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot what is up?" });
    await answered(rig, mention);
    const [answer] = fake.botMessages(group.id);
    expect(answer?.replyTo).toBe(mention.message.message_id);
    expect(answer?.raw).toBe(renderMarkdown(firstAnswer("what is up?")));

    // Not addressed to the bot: a plain message, and a reply to another person.
    const chatter = fake.write({ chat: group.id, from: bob, text: "lunch?" });
    await answered(rig, chatter);
    await answered(
      rig,
      fake.write({
        chat: group.id,
        from: alice,
        text: "sure",
        replyTo: chatter.message.message_id as number,
      }),
    );
    expect(chatRequests(rig)).toHaveLength(1);

    // A reply to the bot's answer continues that conversation, quoting the reply.
    const reply = fake.write({
      chat: group.id,
      from: bob,
      text: "and then?",
      replyTo: answer?.message_id as number,
    });
    await answered(rig, reply);
    const second = fake.botMessages(group.id)[1];
    expect(second?.replyTo).toBe(reply.message.message_id);
    expect(second?.text).toContain("This is question 2 in our conversation.");
    expect(second?.text).toContain("You first asked: “what is up?”");

    // A new mention starts a new chain: a new conversation.
    await answered(
      rig,
      fake.write({ chat: group.id, from: bob, text: "hey @ChatBridgeBot, new topic" }),
    );
    const third = fake.botMessages(group.id)[2];
    expect(third?.text).toContain("You asked: “hey , new topic”");
    expect(third?.text).toContain("This is the first question in our conversation.");
    // Replies in a supergroup carry a reply-thread id; the bot never sent it back as a topic.
    const sends = fake.callsTo("sendMessage", group.id);
    expect(sends).toHaveLength(3);
    expect(sends.every((c) => c.params.message_thread_id === undefined)).toBe(true);
    expect(fake.callsTo("sendRichMessage")).toEqual([]);
    expect(refusedCalls(fake)).toEqual([]);
  });

  it("ignores what no person wrote, even when it mentions the bot", async () => {
    rig = await startRig();
    const { fake, alice, group } = rig;
    const otherBot = {
      id: 5_950_953_118,
      is_bot: true,
      first_name: "Other",
      username: "other_bot",
    };
    const channel = { id: -100_777, type: "channel", title: "News" };
    const written = (edit: Record<string, unknown>) => {
      const update = fake.compose({ chat: group.id, from: alice, text: "@ChatBridgeBot hello" });
      Object.assign(update.message, edit);
      fake.enqueue(update);
      return update;
    };
    const updates = [
      // Another bot.
      written({ from: otherBot }),
      // A result a person picked from an inline bot: the other bot wrote the words.
      written({ via_bot: otherBot }),
      // A channel speaking in the group (Telegram's "Channel" bot with sender_chat).
      written({
        from: { id: 136_817_688, is_bot: true, first_name: "Channel", username: "Channel_Bot" },
        sender_chat: channel,
      }),
    ];
    for (const update of updates) await answered(rig, update);
    expect(chatRequests(rig)).toHaveLength(0);
    expect(fake.botMessages(group.id)).toEqual([]);
  });

  it("streams three answers at once in one group within its budget, without a 429", async () => {
    rig = await startRig({ simulator: { chunkDelayMs: 4, chunkChars: [3, 9] } });
    const { fake, alice, bob, carol, group } = rig;
    const updates = [alice, bob, carol].map((from, i) =>
      fake.write({ chat: group.id, from, text: `@ChatBridgeBot question ${i + 1}` }),
    );
    await answered(rig, updates[2] as (typeof updates)[number]);

    const messages = fake.botMessages(group.id);
    expect(messages).toHaveLength(3);
    for (const [i, update] of updates.entries()) {
      const answer = messages.find((m) => m.replyTo === update.message.message_id);
      expect(answer?.raw).toBe(renderMarkdown(firstAnswer(`question ${i + 1}`)));
      // Each grew in place: at least one edit before its final text.
      expect(answer?.history.length).toBeGreaterThan(1);
    }
    expect(fake.floodErrors).toBe(0);
    // All three streamed side by side: each began before any ended.
    const posts = fake.callsTo("sendMessage", group.id).map((c) => c.at);
    expect(posts).toHaveLength(3);
    const lastEdits = messages.map((m) =>
      Math.max(
        ...fake
          .callsTo("editMessageText", group.id)
          .filter((c) => c.params.message_id === m.message_id)
          .map((c) => c.at),
      ),
    );
    expect(Math.max(...posts)).toBeLessThan(Math.min(...lastEdits));
  });

  it("honours a 429: nothing to the chat until retry_after, and the final text arrives", async () => {
    rig = await startRig({ simulator: { chunkDelayMs: 3, chunkChars: [10, 20] } });
    const { fake, alice, group } = rig;
    fake.failNext({
      method: "editMessageText",
      chatId: group.id,
      errorCode: 429,
      description: "Too Many Requests: retry after 1",
      retryAfter: 0.5,
    });
    const update = fake.write({
      chat: group.id,
      from: alice,
      text: "@ChatBridgeBot long #huge=2500",
    });
    await answered(rig, update);

    const calls = fake.calls.filter(
      (c) => Number(c.params.chat_id) === group.id && c.method !== "sendChatAction",
    );
    const limited = calls.findIndex((c) => c.errorCode === 429);
    expect(limited).toBeGreaterThan(0);
    const next = calls[limited + 1];
    expect((next?.at ?? 0) - (calls[limited]?.at ?? 0)).toBeGreaterThanOrEqual(500);
    expect(fake.violations).toBe(0);
    const [message] = fake.botMessages(group.id);
    expect(message?.text).toBe(hugeAnswer(2_500).trimEnd());
  });
});

describe("Telegram forum topics", () => {
  it("answers in the topic on the topic's conversation, and in General without a thread id", async () => {
    rig = await startRig({ simulator: { chunkDelayMs: 1 } });
    const { fake, alice, bob, forum } = rig;
    // The bot created this topic: every message in it "replies" to the bot's service message.
    const topic = fake.createTopic(forum.id, "Support", fake.bot);

    const first = fake.write({
      chat: forum.id,
      from: alice,
      topic,
      text: "@ChatBridgeBot first in topic",
    });
    await answered(rig, first);
    // Chatter in the topic is not addressed to the bot, though it formally replies to it.
    await answered(rig, fake.write({ chat: forum.id, from: bob, topic, text: "thanks all" }));
    const second = fake.write({
      chat: forum.id,
      from: bob,
      topic,
      text: "@ChatBridgeBot and more",
    });
    await answered(rig, second);
    const general = fake.write({ chat: forum.id, from: alice, text: "@ChatBridgeBot in general" });
    await answered(rig, general);

    const inTopic = fake.botMessages(forum.id, topic);
    expect(inTopic).toHaveLength(2);
    expect(inTopic[0]?.replyTo).toBe(first.message.message_id);
    expect(inTopic[1]?.text).toContain("This is question 2 in our conversation.");
    expect(inTopic[1]?.text).toContain("You first asked: “first in topic”");
    const inGeneral = fake.botMessages(forum.id).filter((m) => m.threadId === undefined);
    expect(inGeneral).toHaveLength(1);
    expect(inGeneral[0]?.text).toContain("This is the first question in our conversation.");
    const sends = fake.callsTo("sendMessage", forum.id);
    expect(sends.filter((c) => c.params.message_thread_id === topic)).toHaveLength(2);
    expect(sends.filter((c) => c.params.message_thread_id === undefined)).toHaveLength(1);
    expect(chatRequests(rig)).toHaveLength(3);
    // Typing shows in the topic too.
    expect(
      fake.callsTo("sendChatAction", forum.id).some((c) => c.params.message_thread_id === topic),
    ).toBe(true);
  });

  it("starts a fresh conversation in a topic after /new there", async () => {
    rig = await startRig();
    const { fake, alice, forum } = rig;
    const topic = fake.createTopic(forum.id, "Ideas", alice);
    for (const text of ["@ChatBridgeBot one", "/new@ChatBridgeBot", "@ChatBridgeBot two"]) {
      await answered(rig, fake.write({ chat: forum.id, from: alice, topic, text }));
    }
    const texts = fake.botMessages(forum.id, topic).map((m) => m.text);
    expect(texts[1]).toBe("Starting fresh: your next question begins a new conversation.");
    expect(texts[2]).toContain("This is the first question in our conversation.");
  });
});
