import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { type FakeTelegram, startFakeTelegram, type Update } from "../support/fake-telegram.ts";
import { startHeldBackend } from "../support/held-backend.ts";
import { type BackendAddress, cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { waitingForTheirThread } from "../support/question-states.ts";
import {
  askedQuestion,
  openStream,
  type RawBackend,
  startRawBackend,
} from "../support/raw-backend.ts";
import { sleep, startRedisLink, startTestRedis } from "../support/redis.ts";
import { botWorkDir, logEntries, type RunningBot, startBot, until } from "../support/run-bot.ts";

const redis = await startTestRedis("two bot processes on Redis");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[two bot processes] skipped: no redis-server of its own");

const SECRET = "two-process-secret";
const CUT = "\n\n⚠️ answer cut off: interrupted";

// Each test its own database: nothing one leaves behind (journal, leases) reaches the next.
let database = 4;
beforeEach(() => {
  database++;
});

const track = cleanupAfterEach();

/** A bot process in webhook mode on a port of its own; all of them share one Redis. */
async function startWebhookBot(
  fake: FakeTelegram,
  backend: BackendAddress,
  extraEnv: Record<string, string> = {},
): Promise<{ bot: RunningBot; webhook: string }> {
  const env = {
    ...telegramBotEnv(fake, backend),
    TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    STORE_URL: `${redis?.url}/${database}`,
    LEADS_POLL_INTERVAL: "0",
    // A dead process's work is taken over after 1.5 s instead of 10 s: the test stays short.
    TAKEOVER_MS: "1500",
    ...extraEnv,
  };
  const bot = track(startBot({ cwd: await botWorkDir(), env }), (b) => b.stop("SIGKILL"));
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)");
  await bot.logLine("channel started");
  return { bot, webhook: `http://127.0.0.1:${port}/telegram/webhook` };
}

async function deliver(webhook: string, update: Update): Promise<number> {
  const response = await fetch(webhook, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify(update),
  });
  await response.arrayBuffer();
  return response.status;
}

/**
 * A chatbot that answers "Answer to: <question>" and holds an answer whose question has
 * `#hold` half-way until the test opens the gate (or forever), so a test decides when it ends.
 */
async function gatedBackend(): Promise<{
  address: BackendAddress;
  backend: RawBackend;
  /** The questions in the order they reached the chatbot. */
  questions(): string[];
  release(): void;
}> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const questions: string[] = [];
  const backend = await startRawBackend(async (ctx) => {
    const question = askedQuestion(ctx);
    questions.push(question);
    await openStream(ctx, question, `conv-${questions.length}`);
    await ctx.write("Answer to: ");
    if (question.includes("#hold")) await Promise.race([gate, ctx.closedPromise]);
    await ctx.write(question);
    ctx.res.end();
  });
  return {
    address: { url: backend.url, apiKey: "sk-gated", botUid: "gated-bot" },
    backend,
    questions: () => questions,
    release,
  };
}

describe.skipIf(!ownRedis)("two bot processes behind one load balancer, on one Redis", () => {
  it("answer a delivery that reached both once, and one thread's questions in order", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 2 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const [a, b] = [await startWebhookBot(fake, simulator), await startWebhookBot(fake, simulator)];

    // A re-delivery that the load balancer sent to the other process.
    const first = fake.compose({ chat: dm.id, from: alice, text: "first question" });
    expect(await deliver(a.webhook, first)).toBe(200);
    expect(await deliver(b.webhook, first)).toBe(200);
    // The next question in the same chat lands on the other process while the first streams.
    const second = fake.compose({ chat: dm.id, from: alice, text: "second question" });
    expect(await deliver(b.webhook, second)).toBe(200);

    const answers = await until("both answers", () => {
      const done = fake.botMessages(dm.id).filter((m) => m.text.includes("to see more."));
      return done && done.length >= 2 ? done : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const all = fake.botMessages(dm.id).filter((m) => m.text.includes("You asked"));
    expect(all).toHaveLength(2);
    expect(answers[0]?.text).toContain("You asked: “first question”");
    expect(answers[1]?.text).toContain("You asked: “second question”");
    expect(answers[1]?.text).toContain("This is question 2 in our conversation.");
    const chats = simulator.requests.filter((r) => r.route === "chat");
    expect(chats).toHaveLength(2);
  });

  it("answer one thread's questions in the order they arrived, whichever process got each", async () => {
    const { chatbot, a, b, shown, texts, ask } = await oneDmTwoProcesses();

    // q1 reaches A and is being answered; q2 reaches B and waits its turn; then q3 reaches A.
    expect(await deliver(a.webhook, ask("q1 #hold"))).toBe(200);
    await until("q1 being answered", () => (shown("Answer to:").length > 0 ? true : undefined));
    expect(await deliver(b.webhook, ask("q2"))).toBe(200);
    await until("q2 waiting", () => waitingForTheirThread(logEntries(b.bot.stderr))[0]);
    expect(await deliver(a.webhook, ask("q3"))).toBe(200);
    await until("q3 waiting", () => waitingForTheirThread(logEntries(a.bot.stderr))[0]);
    // Both wait without a word: the chat shows q1's answer moving, and only it.
    expect(texts()).toEqual(["Answer to:"]);

    chatbot.release();
    await until("three answers", () => (shown("Answer to: q").length === 3 ? true : undefined));
    expect(chatbot.questions()).toEqual(["q1 #hold", "q2", "q3"]);
    expect(texts()).toEqual(["Answer to: q1 #hold", "Answer to: q2", "Answer to: q3"]);
  });

  it("go on with a thread once a process that held its turn died, after TAKEOVER_MS", async () => {
    const { chatbot, a, b, shown, texts, ask } = await oneDmTwoProcesses();

    // A dies while its answer to q1 (never released) holds the thread; q2 waits on B.
    expect(await deliver(a.webhook, ask("q1 #hold"))).toBe(200);
    await until("q1 being answered", () => (shown("Answer to:").length > 0 ? true : undefined));
    expect(await deliver(b.webhook, ask("q2"))).toBe(200);
    await until("q2 waiting", () => waitingForTheirThread(logEntries(b.bot.stderr))[0]);
    expect(texts()).toEqual(["Answer to:"]);
    expect(await a.bot.stop("SIGKILL")).toBeNull();
    const killedAt = performance.now();

    const answer = await until("q2 answered", () => shown("Answer to: q2")[0]);
    expect(answer.text).toBe("Answer to: q2");
    // TAKEOVER_MS is 1500 here: the thread waits for the dead turn's lease to lapse (1–1.5 s
    // after the kill, as it was renewed every 500 ms), a poll, and the answer (~2.4 s in all
    // on a loaded two-core machine), never for the answer that will not come.
    expect(performance.now() - killedAt).toBeLessThan(5_000);
    expect(chatbot.questions()).toEqual(["q1 #hold", "q2"]);
    // q2's answer is its only message, below q1's.
    expect(texts().slice(1)).toEqual(["Answer to: q2"]);
  });

  it("finish the answer of a process killed mid-answer, and go on with its thread", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const debug = { LOG_LEVEL: "debug" };
    const a = await startWebhookBot(fake, simulator, debug);
    const b = await startWebhookBot(fake, simulator, debug);

    // Half an answer is on screen (a draft) when its process dies.
    const question = fake.compose({
      chat: dm.id,
      from: alice,
      text: "tell me everything #pause=30000",
    });
    expect(await deliver(a.webhook, question)).toBe(200);
    await a.bot.logLine("answer journaled");
    expect(await a.bot.stop("SIGKILL")).toBeNull();
    const killedAt = performance.now();

    // The other process finishes it once the dead one's lease lapsed: its text and the note.
    const finished = await until("the interrupted answer finished", () => {
      const [message] = fake.botMessages(dm.id);
      return message?.text.endsWith(CUT) ? message : undefined;
    });
    expect(performance.now() - killedAt).toBeLessThan(6_000);
    expect(finished.text.startsWith("Hello!")).toBe(true);
    expect((await b.bot.logLine("interrupted answers finished")).answers).toBeDefined();

    // The thread the dead process held is not stuck: the next question is answered.
    const next = fake.compose({ chat: dm.id, from: alice, text: "are you still there?" });
    expect(await deliver(b.webhook, next)).toBe(200);
    const answer = await until("the next answer", () =>
      fake.botMessages(dm.id).find((m) => m.text.includes("to see more.")),
    );
    expect(answer.text).toContain("You asked: “are you still there?”");
    expect(fake.botMessages(dm.id)).toHaveLength(2);
  });

  it("announce each new lead once, and go on announcing when the polling process dies", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ leads: 3 }), (s) => s.close());
    const sales = fake.addChat({ id: -1009, type: "supergroup", title: "Sales" });
    const leadsEnv = { LEADS_POLL_INTERVAL: "1", LEADS_TELEGRAM_CHATS: String(sales.id) };
    const a = await startWebhookBot(fake, simulator, leadsEnv);
    await a.bot.logLine("first lead poll: existing leads recorded as seen, not announced");
    const b = await startWebhookBot(fake, simulator, leadsEnv);

    for (const name of ["Lead One", "Lead Two"]) {
      simulator.addLead({ name, email: "one@example.com", remark: "from the test" });
    }
    await until("two announcements", () =>
      fake.botMessages(sales.id).length >= 2 ? true : undefined,
    );
    // Both processes poll every second: a few more rounds change nothing.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const names = () => fake.botMessages(sales.id).map((m) => m.text.split("\n")[1]);
    expect(names()).toEqual(["Name: Lead One", "Name: Lead Two"]);

    // Whichever process held the poll dies; the other one takes the poll over.
    expect(await a.bot.stop("SIGKILL")).toBeNull();
    simulator.addLead({ name: "Lead Three", phone: "+1 555 0100", remark: "after the kill" });
    await until("the third announcement", () =>
      fake.botMessages(sales.id).length >= 3 ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(names()).toEqual(["Name: Lead One", "Name: Lead Two", "Name: Lead Three"]);
    expect(b.bot.stderr).not.toContain("Lead Three");
  });
});

describe.skipIf(!ownRedis)("two bot processes through a Redis outage", () => {
  it("leave the answers that ended during the outage as they ended, and take over only a process that is gone", async () => {
    const fake = track(await startFakeTelegram({ draftsAvailable: false }), (f) => f.close());
    const chatbot = track(await startHeldBackend(), (c) => {
      c.releaseAll();
      return c.close();
    });
    // The bots reach Redis through a link the test cuts: an outage as a network sees it.
    const link = track(await startRedisLink(redis?.server?.port ?? 0), (l) => l.close());
    const env = { STORE_URL: `${link.url}/${database}`, TAKEOVER_MS: "3000", LOG_LEVEL: "debug" };
    const a = await startWebhookBot(fake, chatbot, env);
    const b = await startWebhookBot(fake, chatbot, env);
    const questions = ["early one", "early two", "late one", "late two"];
    const chats = questions.map((question, i) => {
      const person = fake.user(2001 + i, `Person ${i}`);
      const chat = fake.addChat({ id: person.id, type: "private", first_name: `Person ${i}` });
      return {
        question,
        chat: chat.id,
        ask: fake.compose({ chat: chat.id, from: person, text: question }),
      };
    });
    const shown = () =>
      chats.map(({ chat }) => {
        const [answer, ...more] = fake.botMessages(chat);
        const buttons = answer?.replyMarkup?.inline_keyboard.flat().map((button) => button.text);
        const cut = answer?.history.some((text) => text.includes("interrupted"));
        return { text: answer?.text, buttons, more: more.length, cut };
      });
    /** The answers in `range` show their final text and its 👍/👎. */
    const ended = (...range: [number, number?]) =>
      shown()
        .slice(...range)
        .every((answer) => answer.buttons?.[0] === "👍") || undefined;
    const expected = questions.map((question) => ({
      text: `Answer to ${question}.`,
      buttons: ["👍", "👎"],
      more: 0,
      cut: false,
    }));

    // Four answers stream on A, each on screen and in the journal.
    for (const { ask } of chats) expect(await deliver(a.webhook, ask)).toBe(200);
    const journaled = () => logEntries(a.bot.stderr).filter((e) => e.msg === "answer journaled");
    await until("four answers journaled", () => journaled().length === 4 || undefined);

    // Redis is away for twice TAKEOVER_MS; two answers end meanwhile.
    link.cut();
    try {
      await sleep(1_000);
      chatbot.release((q) => q.startsWith("early"));
      await until("the early answers ended", () => ended(0, 2));
      await sleep(5_000);
    } finally {
      link.mend();
    }
    // B, up all along, sweeps for dead processes every second; A renews once Redis answers.
    await sleep(7_000);
    chatbot.release((q) => q.startsWith("late"));
    await until("the late answers ended", () => ended(2));
    expect(shown()).toEqual(expected);

    // A completed every answer: once it is really gone, B has nothing of it to finish.
    // (Each answer's record goes right after its final text, which waits for no store call.)
    const answered = () => logEntries(a.bot.stderr).filter((e) => e.msg === "question answered");
    await until("A logged its four answers", () => answered().length === 4 || undefined);
    expect(await a.bot.stop("SIGKILL")).toBeNull();
    await sleep(8_000);
    expect(shown()).toEqual(expected);
    const finished = logEntries(b.bot.stderr).filter(
      (e) => e.msg === "interrupted answers finished" && e.answers !== 0,
    );
    expect(finished).toEqual([]);
  }, 60_000);
});

/**
 * Alice's private chat, answered by two bot processes on one Redis through the webhook, and
 * a backend that holds questions marked #hold until released. Drafts off: each answer's
 * first message is a real one, so a test can see it.
 */
async function oneDmTwoProcesses() {
  const fake = track(await startFakeTelegram({ draftsAvailable: false }), (f) => f.close());
  const chatbot = await gatedBackend();
  track(chatbot.backend, (b) => b.close());
  const alice = fake.user(1001, "Alice", "alice_example");
  const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
  // At debug level each process logs its questions' changes of state.
  const debug = { LOG_LEVEL: "debug" };
  const a = await startWebhookBot(fake, chatbot.address, debug);
  const b = await startWebhookBot(fake, chatbot.address, debug);
  return {
    chatbot,
    a,
    b,
    shown: (text: string) => fake.botMessages(dm.id).filter((m) => m.text.includes(text)),
    /** What the chat shows, top to bottom. */
    texts: () => fake.botMessages(dm.id).map((m) => m.text),
    ask: (text: string) => fake.compose({ chat: dm.id, from: alice, text }),
  };
}

describe.skipIf(!ownRedis)("one of two bot processes cut off from Redis alone", () => {
  it("keeps what its answers showed: the other takes it for alive while its connections stand", async () => {
    const fake = track(await startFakeTelegram({ draftsAvailable: false }), (f) => f.close());
    const chatbot = track(await startHeldBackend(), (c) => {
      c.releaseAll();
      return c.close();
    });
    // A reaches Redis through a link the test partitions; B straight.
    const link = track(await startRedisLink(redis?.server?.port ?? 0), (l) => l.close());
    const debug = { TAKEOVER_MS: "1500", LOG_LEVEL: "debug" };
    const a = await startWebhookBot(fake, chatbot, {
      ...debug,
      STORE_URL: `${link.url}/${database}`,
    });
    const b = await startWebhookBot(fake, chatbot, debug);
    const chats = ["finished before", "finished during", "streaming through"].map((question, i) => {
      const person = fake.user(3001 + i, `Person ${i}`);
      const chat = fake.addChat({ id: person.id, type: "private", first_name: `Person ${i}` });
      return {
        question,
        chat: chat.id,
        ask: fake.compose({ chat: chat.id, from: person, text: question }),
      };
    });
    const answer = (i: number) => fake.botMessages(chats[i]?.chat ?? 0)[0];
    const ended = (i: number) =>
      answer(i)?.replyMarkup?.inline_keyboard.flat()[0]?.text === "👍" || undefined;

    // A answers all three; the first ends before the partition.
    for (const { ask } of chats) expect(await deliver(a.webhook, ask)).toBe(200);
    const journaled = () => logEntries(a.bot.stderr).filter((e) => e.msg === "answer journaled");
    await until("three answers journaled", () => journaled().length === 3 || undefined);
    chatbot.release((q) => q === "finished before");
    await until("the first answer ended", () => ended(0));

    link.partition();
    try {
      chatbot.release((q) => q === "finished during");
      await until("the second answer ended", () => ended(1));
      // A's presence lapses; B's sweeps, once it has been up a whole lease since, find A's
      // run and must take it for alive: A's connections to Redis still stand.
      const checked = () =>
        logEntries(b.bot.stderr).filter((e) => e.msg === "journal runs checked" && e.runs === 1);
      const seen = checked().length;
      await until(
        "B's sweeps over A's run",
        () => checked().length >= seen + 6 || undefined,
        15_000,
      );
      expect(checked().every((e) => e.dead === 0)).toBe(true);
    } finally {
      link.mend();
    }
    chatbot.release((q) => q === "streaming through");
    await until("the third answer ended", () => ended(2));

    for (const [i, { question }] of chats.entries()) {
      expect(answer(i)?.text).toBe(`Answer to ${question}.`);
      expect(answer(i)?.history.some((text) => text.includes("interrupted"))).toBe(false);
      expect(fake.botMessages(chats[i]?.chat ?? 0)).toHaveLength(1);
    }
    const finished = logEntries(b.bot.stderr).filter(
      (e) => e.msg === "interrupted answers finished" && e.answers !== 0,
    );
    expect(finished).toEqual([]);
  }, 60_000);
});
