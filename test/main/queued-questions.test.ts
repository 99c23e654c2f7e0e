import { describe, expect, it } from "vitest";
import type { FakeTelegram, User } from "../support/fake-telegram.ts";
import { telegramWithHeldBackend } from "../support/held-backend.ts";
import { trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { waitingForTheirThread } from "../support/question-states.ts";
import { logEntries, until } from "../support/run-bot.ts";

const track = cleanupAfterEach();

const IN_LINE = /^⏳ many questions right now: yours is number (\d+) in line$/;

async function startQueueBot(env: Record<string, string>) {
  const { fake, backend } = await telegramWithHeldBackend(track);
  const bot = trackedBot(track, {
    ...telegramBotEnv(fake, backend),
    LEADS_POLL_INTERVAL: "0",
    // Answers' edits paced for a test: the places in line keep their own pace.
    TELEGRAM_EDIT_INTERVAL_MS: "100",
    ...env,
  });
  await bot.started;
  return { fake, backend, bot };
}

function privateChats(fake: FakeTelegram, names: readonly string[]): User[] {
  return names.map((name, i) => {
    const person = fake.user(3001 + i, name);
    fake.addChat({ id: person.id, type: "private", first_name: person.first_name });
    return person;
  });
}

/** The places in line the people's last messages show now (undefined: not in line). */
function placesShown(fake: FakeTelegram, people: readonly User[]): (number | undefined)[] {
  return people.map((p) => {
    const match = IN_LINE.exec(fake.botMessages(p.id).at(-1)?.text ?? "");
    return match ? Number(match[1]) : undefined;
  });
}

/** Waits until the people in line show exactly the places 1…n, each once. */
async function untilPlacesUnique(fake: FakeTelegram, waiting: readonly User[]): Promise<void> {
  const wanted = waiting.map((_, i) => i + 1).join(",");
  await until(
    `places ${wanted}`,
    () => {
      const places = placesShown(fake, waiting);
      if (places.some((p) => p === undefined)) return undefined;
      return [...places].sort((a = 0, b = 0) => a - b).join(",") === wanted ? true : undefined;
    },
    8_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; shown: ${placesShown(fake, waiting).join(", ")}`);
  });
}

describe("questions waiting for room (MAX_ACTIVE_ANSWERS)", () => {
  it("seven at once are told unique places, kept current as those ahead are answered", async () => {
    const { fake, backend, bot } = await startQueueBot({ MAX_ACTIVE_ANSWERS: "1" });
    const people = privateChats(fake, ["P1", "P2", "P3", "P4", "P5", "P6", "P7"]);
    for (const [i, person] of people.entries()) {
      fake.write({ chat: person.id, from: person, text: `q${i + 1}` });
    }
    await until("one answering", () => (backend.open === 1 ? true : undefined));
    const first = backend.asked[0] as string;
    let waiting = people.filter((_, i) => `q${i + 1}` !== first);
    await untilPlacesUnique(fake, waiting);

    // Each answer released: those still waiting move up, each to a place of its own.
    while (waiting.length > 1) {
      const running = backend.asked.at(-1) as string;
      // Released at each look until the next is asked: the backend may not hold it yet (its
      // request in, its first words not yet out), and a release before that would be lost.
      await until("the next answering", () => {
        backend.release((q) => q === running);
        return backend.asked.length === people.length - waiting.length + 1 ? true : undefined;
      });
      waiting = waiting.filter((p) => !backend.asked.includes(`q${people.indexOf(p) + 1}`));
      await untilPlacesUnique(fake, waiting);
    }
    backend.releaseAll();
    for (const [i, person] of people.entries()) {
      await until(`answer ${i + 1}`, () =>
        fake.botMessages(person.id).at(-1)?.text === `Answer to q${i + 1}.` ? true : undefined,
      );
    }
    expect(await bot.stop()).toBe(0);
  }, 60_000);

  it("a question waiting in line is withdrawn by its asker's stop: never asked, its notice says so", async () => {
    const { fake, backend } = await startQueueBot({ MAX_ACTIVE_ANSWERS: "1" });
    const [alice, bob, carol] = privateChats(fake, ["Alice", "Bob", "Carol"]) as [User, User, User];
    fake.write({ chat: alice.id, from: alice, text: "q1" });
    await until("q1 answering", () => (backend.open === 1 ? true : undefined));
    fake.write({ chat: bob.id, from: bob, text: "q2" });
    fake.write({ chat: carol.id, from: carol, text: "q3" });
    await untilPlacesUnique(fake, [bob, carol]);
    const notice = fake.botMessages(bob.id).at(-1);

    fake.write({ chat: bob.id, from: bob, text: "/stop" });
    await until("the notice withdrawn", () =>
      notice?.text === "⏹ withdrawn by Bob: this question will not be answered" ? true : undefined,
    );
    await until("the reply to the stop", () =>
      fake.botMessages(bob.id).at(-1)?.text === "⏹ Your waiting question was withdrawn."
        ? true
        : undefined,
    );
    // Carol moves up to the place Bob left.
    await until("carol first in line", () =>
      placesShown(fake, [carol])[0] === 1 ? true : undefined,
    );
    backend.releaseAll();
    await until("q3 answered", () =>
      fake.botMessages(carol.id).at(-1)?.text === "Answer to q3." ? true : undefined,
    );
    expect(backend.asked).toEqual(["q1", "q3"]);
    expect(fake.botMessages(bob.id).some((m) => m.text.includes("q2"))).toBe(false);
  });

  it("a question waiting behind its thread's earlier one is not withdrawn by the stop: the stop ends the running answer, then it is answered", async () => {
    const { fake, backend, bot } = await startQueueBot({
      MAX_ACTIVE_ANSWERS: "2",
      LOG_LEVEL: "debug",
    });
    const [alice] = privateChats(fake, ["Alice"]) as [User];
    fake.write({ chat: alice.id, from: alice, text: "q1" });
    await until("q1 answering", () => (backend.open === 1 ? true : undefined));
    fake.write({ chat: alice.id, from: alice, text: "q2" });
    await until("q2 waiting for q1", () => waitingForTheirThread(logEntries(bot.stderr))[0]);
    // q2 shows nothing while it waits: the chat shows q1's answer moving, and only it.
    const shown = () => fake.botMessages(alice.id).map((m) => m.text);
    expect(shown()).toEqual(["Answer to q1"]);

    fake.write({ chat: alice.id, from: alice, text: "/stop" });
    await until("q1 stopped", () =>
      /^Answer to q1\s+⏹ stopped by Alice$/.test(shown()[0] ?? "") ? true : undefined,
    );
    // q2 had no notice to withdraw: its turn came with the end of q1's answer.
    await until("q2 asked", () => (backend.asked.length === 2 ? true : undefined));
    expect(backend.asked).toEqual(["q1", "q2"]);
    backend.releaseAll();
    await until("q2 answered", () => (shown()[1] === "Answer to q2." ? true : undefined));
    expect(shown()).toEqual([
      expect.stringMatching(/^Answer to q1\s+⏹ stopped by Alice$/),
      "Answer to q2.",
    ]);
  });

  it("a name with bidi controls is shown with them neutralised in the stopped note", async () => {
    const { fake, backend } = await startQueueBot({});
    const [mallory] = privateChats(fake, ["Mallory\u202Eevil"]) as [User];
    fake.write({ chat: mallory.id, from: mallory, text: "q1" });
    const answer = await until("q1 answering", () =>
      backend.open === 1 ? fake.botMessages(mallory.id).at(-1) : undefined,
    );
    fake.write({ chat: mallory.id, from: mallory, text: "/stop" });
    await until("the stopped note", () =>
      answer.text.includes("⏹ stopped by") ? true : undefined,
    );
    const note = answer.text.slice(answer.text.indexOf("⏹"));
    expect(note).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(note).toMatch(/^⏹ stopped by Mallory.?evil$/u);
  });
});
