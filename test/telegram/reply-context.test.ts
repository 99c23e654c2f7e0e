import { afterEach, describe, expect, it } from "vitest";
import { answered, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** What the chatbot received, question by question. */
const asked = (r: Rig) =>
  r.harness.simulator.requests.filter((q) => q.route === "chat").map((q) => q.chat?.q);

/** The layout of a question that replies to `author`'s `text`. */
const replying = (author: string, text: string, question: string) =>
  `In reply to:\n${author}: ${text}\n\nQuestion:\n${question}`;

describe("Telegram: a first question carries the message it replies to", () => {
  it("a mention replying to a colleague's message carries it, with its author's name", async () => {
    rig = await startRig();
    const { fake, alice, bob, group } = rig;
    const invoice = fake.write({
      chat: group.id,
      from: bob,
      text: "The invoice says 120\u202e EUR, not 100",
    });
    await answered(rig, invoice);
    const question = fake.write({
      chat: group.id,
      from: alice,
      text: "@ChatBridgeBot is this right?",
      replyTo: invoice.message.message_id as number,
    });
    await answered(rig, question);

    expect(asked(rig)).toEqual([
      replying("@bob_example", "The invoice says 120 EUR, not 100", "is this right?"),
    ]);
    expect(fake.botMessages(group.id)[0]?.replyTo).toBe(question.message.message_id);
  });

  it("a reply that quotes part of a message carries only the quote; a photo's caption counts as its text", async () => {
    rig = await startRig();
    const { fake, alice, bob, carol, group } = rig;
    const policy = fake.write({
      chat: group.id,
      from: bob,
      text: "Shipping is free over 50 EUR. Returns are accepted within 30 days.",
    });
    const photo = fake.write({ chat: group.id, from: carol, caption: "Damaged box, order 4411" });
    const quoting = fake.write({
      chat: group.id,
      from: alice,
      text: "@ChatBridgeBot does this include sale items?",
      replyTo: policy.message.message_id as number,
      quote: "Returns are accepted within 30 days.",
    });
    await answered(rig, quoting);
    const aboutPhoto = fake.write({
      chat: group.id,
      from: alice,
      text: "@ChatBridgeBot can we refund this?",
      replyTo: photo.message.message_id as number,
    });
    await answered(rig, aboutPhoto);

    expect(asked(rig)).toEqual([
      replying(
        "@bob_example",
        "Returns are accepted within 30 days.",
        "does this include sale items?",
      ),
      replying("Carol", "Damaged box, order 4411", "can we refund this?"),
    ]);
  });

  it("a later question of the conversation carries nothing, nor does a message in a forum topic", async () => {
    rig = await startRig();
    const { fake, alice, bob, group, forum } = rig;
    const note = fake.write({ chat: group.id, from: bob, text: "Order 4411 is late" });
    const first = fake.write({
      chat: group.id,
      from: alice,
      text: "@ChatBridgeBot why?",
      replyTo: note.message.message_id as number,
    });
    await answered(rig, first);
    const [answer] = fake.botMessages(group.id);
    const later = fake.write({
      chat: group.id,
      from: bob,
      text: "and when will it come?",
      replyTo: answer?.message_id as number,
    });
    await answered(rig, later);
    // In a topic every message "replies" to the topic's first one: no reply a person chose.
    const topic = fake.createTopic(forum.id, "Refunds", bob);
    await answered(
      rig,
      fake.write({ chat: forum.id, from: alice, text: "@ChatBridgeBot hello", topic }),
    );

    expect(asked(rig)).toEqual([
      replying("@bob_example", "Order 4411 is late", "why?"),
      "and when will it come?",
      "hello",
    ]);
  });

  it("in a private chat, only the asker's own message: never the bot's", async () => {
    rig = await startRig();
    const { fake, alice, dm } = rig;
    const order = fake.write({ chat: dm.id, from: alice, text: "my order is 4411" });
    await answered(rig, order);
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "/new" }));
    await answered(
      rig,
      fake.write({
        chat: dm.id,
        from: alice,
        text: "when will it arrive?",
        replyTo: order.message.message_id as number,
      }),
    );
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "/new" }));
    const [answer] = fake.botMessages(dm.id);
    await answered(
      rig,
      fake.write({
        chat: dm.id,
        from: alice,
        text: "what did you mean?",
        replyTo: answer?.message_id as number,
      }),
    );

    expect(asked(rig)).toEqual([
      "my order is 4411",
      replying("@alice_example", "my order is 4411", "when will it arrive?"),
      "what did you mean?",
    ]);
  });
});
