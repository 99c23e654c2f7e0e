import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { type FakeTelegram, startFakeTelegram, type Update } from "../support/fake-telegram.ts";
import { type HeldBackend, startHeldBackend } from "../support/held-backend.ts";
import { journalLeft } from "../support/journal.ts";
import {
  type BackendAddress,
  cleanupAfterAll,
  cleanupAfterEach,
  type Track,
  telegramBotEnv,
} from "../support/process-test.ts";
import { waitingForTheirThread } from "../support/question-states.ts";
import {
  askedQuestion,
  openStream,
  type RawBackend,
  startRawBackend,
} from "../support/raw-backend.ts";
import { presencesHeld, type RedisLink, startRedisLink, startTestRedis } from "../support/redis.ts";
import {
  botWorkDir,
  logEntries,
  matchingLines,
  START_MS,
  startBot,
  until,
} from "../support/run-bot.ts";

const redis = await startTestRedis("two bot processes on Redis");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[two bot processes] skipped: no redis-server of its own");

const SECRET = "two-process-secret";
const CUT = "\n\n⚠️ answer cut off: interrupted";
const SWEEP = "journal runs checked";

// Each set of processes its own database: nothing one leaves behind (journal, leases) reaches
// the next.
let lastDatabase = 4;
/** A database no test of this file used yet. */
const freshDatabase = () => ++lastDatabase;
/** Database `n`, straight on the test's Redis. */
const onRedis = (n: number) => `${redis?.url}/${n}`;

const track = cleanupAfterEach();

// Its tests start bot processes: on a loaded two-core machine a start alone takes seconds.
vi.setConfig({ testTimeout: 3 * START_MS, hookTimeout: 2 * START_MS });

interface WebhookBot {
  bot: ReturnType<typeof startBot>;
  webhook: string;
  /** Its HTTP server (/metrics). */
  url: string;
}

/**
 * A bot process in webhook mode on a port of its own, on the Redis `env.STORE_URL` names;
 * closed by `keep` (after the test, by default).
 */
async function startWebhookBot(
  fake: FakeTelegram,
  backend: BackendAddress,
  env: { STORE_URL: string } & Record<string, string>,
  keep: Track = track,
): Promise<WebhookBot> {
  const settings = {
    ...telegramBotEnv(fake, backend),
    TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    LEADS_POLL_INTERVAL: "0",
    // A dead process's work is taken over after 1.5 s instead of 10 s: the test stays short.
    TAKEOVER_MS: "1500",
    ...env,
  };
  const bot = keep(startBot({ cwd: await botWorkDir(), env: settings }), (b) => b.stop("SIGKILL"));
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)", START_MS);
  await bot.logLine("channel started", START_MS);
  const url = `http://127.0.0.1:${port}`;
  return { bot, url, webhook: `${url}/telegram/webhook` };
}

/** Two such processes, started side by side. */
async function startTwo(
  ...args: Parameters<typeof startWebhookBot>
): Promise<[WebhookBot, WebhookBot]> {
  const [a, b] = await Promise.all([startWebhookBot(...args), startWebhookBot(...args)]);
  return [a, b];
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

/** Lead polls a process has run to their end, whatever their outcome (its /metrics). */
async function leadPolls(bot: WebhookBot): Promise<number> {
  const text = await (await fetch(`${bot.url}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^chatbot_bridge_lead_polls_total\{[^}]*\} (\d+)$/gm)) {
    total += Number(match[1]);
  }
  return total;
}

/**
 * Resolves once each of `bots` has run two more lead polls than now: one of them began after
 * this call, so whatever it would have announced is on screen.
 */
async function twoMorePolls(...bots: WebhookBot[]): Promise<void> {
  const from = await Promise.all(bots.map(leadPolls));
  for (const [i, bot] of bots.entries()) {
    await until("two more lead polls", async () =>
      (await leadPolls(bot)) >= (from[i] ?? 0) + 2 ? true : undefined,
    );
  }
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
  /** Ends the answers held now; a `#hold` asked later is held again. */
  release(): void;
}> {
  let open = () => {};
  let gate = Promise.resolve();
  const close = () => {
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
  };
  close();
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
    release: () => {
      open();
      close();
    },
  };
}

/** A private chat of its own with the bot; `id` tells the people of one file's tests apart. */
function privateChat(fake: FakeTelegram, id: number, name: string) {
  const person = fake.user(id, name);
  const chat = fake.addChat({ id: person.id, type: "private", first_name: name });
  return {
    chat: chat.id,
    /** What the chat shows, top to bottom. */
    texts: () => fake.botMessages(chat.id).map((m) => m.text),
    shown: (text: string) => fake.botMessages(chat.id).filter((m) => m.text.includes(text)),
    ask: (text: string) => fake.compose({ chat: chat.id, from: person, text }),
  };
}

describe.skipIf(!ownRedis)("two bot processes behind one load balancer, on one Redis", () => {
  // Its tests share the processes, each in a chat of its own; the last kills one.
  describe("answering from the chatbot", () => {
    const keep = cleanupAfterAll();
    let fake: FakeTelegram;
    let simulator: Simulator;
    let a: WebhookBot;
    let b: WebhookBot;
    beforeAll(async () => {
      fake = keep(await startFakeTelegram(), (f) => f.close());
      simulator = keep(await startSimulator({ chunkDelayMs: 2 }), (s) => s.close());
      // At debug level each process logs its questions' changes of state.
      [a, b] = await startTwo(
        fake,
        simulator,
        { STORE_URL: onRedis(freshDatabase()), LOG_LEVEL: "debug" },
        keep,
      );
    });

    it("answer a delivery that reached both once, and one thread's questions in order", async () => {
      const { chat, ask } = privateChat(fake, 1001, "Alice");
      const asked = simulator.requests.length;
      // A re-delivery that the load balancer sent to the other process.
      const first = ask("first question");
      expect(await deliver(a.webhook, first)).toBe(200);
      expect(await deliver(b.webhook, first)).toBe(200);
      // B finds it taken by A: it goes no further there.
      await b.bot.logLine({ msg: "question refused", why: "delivery already handled" });
      // The next question in the same chat lands on the other process while the first streams.
      expect(await deliver(b.webhook, ask("second question"))).toBe(200);

      const answers = await until("both answers", () => {
        const done = fake.botMessages(chat).filter((m) => m.text.includes("to see more."));
        return done.length >= 2 ? done : undefined;
      });
      // A second answer to the first would have come before the second question's.
      const all = fake.botMessages(chat).filter((m) => m.text.includes("You asked"));
      expect(all).toHaveLength(2);
      expect(answers[0]?.text).toContain("You asked: “first question”");
      expect(answers[1]?.text).toContain("You asked: “second question”");
      expect(answers[1]?.text).toContain("This is question 2 in our conversation.");
      const chats = simulator.requests.slice(asked).filter((r) => r.route === "chat");
      expect(chats).toHaveLength(2);
    });

    it("finish the answer of a process killed mid-answer, and go on with its thread", async () => {
      const { chat, ask } = privateChat(fake, 1002, "Bob");
      const [fromA, fromB] = [a, b].map((p) => logEntries(p.bot.stderr).length);
      // Half an answer is on screen when its process dies.
      expect(await deliver(a.webhook, ask("tell me everything #pause=30000"))).toBe(200);
      await a.bot.logLine("answer journaled", 10_000, fromA);
      expect(await a.bot.stop("SIGKILL")).toBeNull();
      const killedAt = performance.now();

      // The other process finishes it once the dead one's lease lapsed: its text and the note.
      const finished = await until("the interrupted answer finished", () => {
        const [message] = fake.botMessages(chat);
        return message?.text.endsWith(CUT) ? message : undefined;
      });
      expect(performance.now() - killedAt).toBeLessThan(6_000);
      expect(finished.text.startsWith("Hello!")).toBe(true);
      await b.bot.logLine({ msg: "interrupted answers finished", answers: 1 }, 10_000, fromB);

      // The thread the dead process held is not stuck: the next question is answered.
      expect(await deliver(b.webhook, ask("are you still there?"))).toBe(200);
      const answer = await until("the next answer", () =>
        fake.botMessages(chat).find((m) => m.text.includes("to see more.")),
      );
      expect(answer.text).toContain("You asked: “are you still there?”");
      expect(fake.botMessages(chat)).toHaveLength(2);
    });
  });

  // Its tests share the processes, each in a chat of its own; the last kills one.
  describe("answers the test holds", () => {
    const keep = cleanupAfterAll();
    let fake: FakeTelegram;
    let chatbot: Awaited<ReturnType<typeof gatedBackend>>;
    let a: WebhookBot;
    let b: WebhookBot;
    beforeAll(async () => {
      // Drafts off: each answer's first message is a real one, so a test can see it.
      fake = keep(await startFakeTelegram({ draftsAvailable: false }), (f) => f.close());
      chatbot = await gatedBackend();
      keep(chatbot.backend, (backend) => backend.close());
      [a, b] = await startTwo(
        fake,
        chatbot.address,
        { STORE_URL: onRedis(freshDatabase()), LOG_LEVEL: "debug" },
        keep,
      );
    });

    /** A chat of its own; the questions the chatbot got since, and who waits for its thread. */
    function dm(id: number, name: string) {
      const chat = privateChat(fake, id, name);
      const asked = chatbot.questions().length;
      const lines = { a: logEntries(a.bot.stderr).length, b: logEntries(b.bot.stderr).length };
      return {
        ...chat,
        questions: () => chatbot.questions().slice(asked),
        waiting: (on: "a" | "b") =>
          waitingForTheirThread(logEntries((on === "a" ? a : b).bot.stderr).slice(lines[on]))[0],
      };
    }

    /** q1 reaches A and is being answered (held); q2 reaches B and waits its turn. */
    async function heldOnAWaitingOnB({ shown, ask, waiting }: ReturnType<typeof dm>) {
      expect(await deliver(a.webhook, ask("q1 #hold"))).toBe(200);
      await until("q1 being answered", () => (shown("Answer to:").length > 0 ? true : undefined));
      expect(await deliver(b.webhook, ask("q2"))).toBe(200);
      await until("q2 waiting", () => waiting("b"));
    }

    it("answer one thread's questions in the order they arrived, whichever process got each", async () => {
      const chat = dm(1001, "Alice");
      const { shown, texts, ask, questions, waiting } = chat;

      // q1 reaches A and is being answered; q2 reaches B and waits its turn; then q3 reaches A.
      await heldOnAWaitingOnB(chat);
      expect(await deliver(a.webhook, ask("q3"))).toBe(200);
      await until("q3 waiting", () => waiting("a"));
      // Both wait without a word: the chat shows q1's answer moving, and only it.
      expect(texts()).toEqual(["Answer to:"]);

      chatbot.release();
      await until("three answers", () => (shown("Answer to: q").length === 3 ? true : undefined));
      expect(questions()).toEqual(["q1 #hold", "q2", "q3"]);
      expect(texts()).toEqual(["Answer to: q1 #hold", "Answer to: q2", "Answer to: q3"]);
    });

    it("go on with a thread once a process that held its turn died, after TAKEOVER_MS", async () => {
      const chat = dm(1002, "Bob");
      const { shown, texts, questions } = chat;

      // A dies while its answer to q1 (never released) holds the thread; q2 waits on B.
      await heldOnAWaitingOnB(chat);
      expect(texts()).toEqual(["Answer to:"]);
      expect(await a.bot.stop("SIGKILL")).toBeNull();
      const killedAt = performance.now();

      const answer = await until("q2 answered", () => shown("Answer to: q2")[0]);
      expect(answer.text).toBe("Answer to: q2");
      // TAKEOVER_MS is 1500 here: the thread waits for the dead turn's lease to lapse (1–1.5 s
      // after the kill, as it was renewed every 500 ms), a poll, and the answer (~2.4 s in all
      // on a loaded two-core machine), never for the answer that will not come.
      expect(performance.now() - killedAt).toBeLessThan(5_000);
      expect(questions()).toEqual(["q1 #hold", "q2"]);
      // q2's answer is its only message, below q1's.
      expect(texts().slice(1)).toEqual(["Answer to: q2"]);
    });
  });

  it("announce each new lead once, and go on announcing when the polling process dies", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ leads: 3 }), (s) => s.close());
    const sales = fake.addChat({ id: -1009, type: "supergroup", title: "Sales" });
    const bots = await startTwo(fake, simulator, {
      STORE_URL: onRedis(freshDatabase()),
      LEADS_POLL_INTERVAL: "1",
      LEADS_TELEGRAM_CHATS: String(sales.id),
    });
    // One of the two polls; the other stands by.
    const FIRST_POLL = "first lead poll: existing leads recorded as seen, not announced";
    const poller = await until("the first lead poll", () =>
      bots.find((b) => matchingLines(b.bot.stderr, FIRST_POLL).length > 0),
    );
    const other = bots.find((b) => b !== poller) as WebhookBot;

    for (const name of ["Lead One", "Lead Two"]) {
      simulator.addLead({ name, email: "one@example.com", remark: "from the test" });
    }
    await until("two announcements", () =>
      fake.botMessages(sales.id).length >= 2 ? true : undefined,
    );
    // Both processes poll every second: their next rounds change nothing.
    await twoMorePolls(poller, other);
    const names = () => fake.botMessages(sales.id).map((m) => m.text.split("\n")[1]);
    expect(names()).toEqual(["Name: Lead One", "Name: Lead Two"]);

    // The process that held the poll dies; the other one takes the poll over.
    expect(await poller.bot.stop("SIGKILL")).toBeNull();
    simulator.addLead({ name: "Lead Three", phone: "+1 555 0100", remark: "after the kill" });
    await until("the third announcement", () =>
      fake.botMessages(sales.id).length >= 3 ? true : undefined,
    );
    await twoMorePolls(other);
    expect(names()).toEqual(["Name: Lead One", "Name: Lead Two", "Name: Lead Three"]);
    expect(other.bot.stderr).not.toContain("Lead Three");
  });
});

// Its tests share the processes, each in chats of its own; the last kills one.
describe.skipIf(!ownRedis)(
  "two bot processes, each reaching Redis through a link of its own",
  () => {
    const keep = cleanupAfterAll();
    let fake: FakeTelegram;
    let chatbot: HeldBackend;
    // The bots reach Redis through links the test cuts: an outage as a network sees it.
    let links: [RedisLink, RedisLink];
    let a: WebhookBot;
    let b: WebhookBot;
    const database = freshDatabase();
    beforeAll(async () => {
      fake = keep(await startFakeTelegram({ draftsAvailable: false }), (f) => f.close());
      chatbot = keep(await startHeldBackend(), (c) => {
        c.releaseAll();
        return c.close();
      });
      const port = redis?.server?.port ?? 0;
      links = [await startRedisLink(port), await startRedisLink(port)];
      for (const link of links) keep(link, (l) => l.close());
      const through = (link: RedisLink) =>
        startWebhookBot(
          fake,
          chatbot,
          { STORE_URL: `${link.url}/${database}`, LOG_LEVEL: "debug" },
          keep,
        );
      [a, b] = await Promise.all([through(links[0]), through(links[1])]);
    });

    /** A private chat per question, from person `firstId` on; asked on A. */
    function chatsFor(questions: string[], firstId: number) {
      return questions.map((question, i) => {
        const person = fake.user(firstId + i, `Person ${i}`);
        const chat = fake.addChat({ id: person.id, type: "private", first_name: `Person ${i}` });
        const answer = () => fake.botMessages(chat.id)[0];
        return {
          question,
          chat: chat.id,
          ask: fake.compose({ chat: chat.id, from: person, text: question }),
          answer,
          /** It shows its final text and its 👍/👎. */
          ended: () => answer()?.replyMarkup?.inline_keyboard.flat()[0]?.text === "👍" || undefined,
        };
      });
    }

    /** Delivers each question to A and resolves once each answer is on screen and journaled. */
    async function askA(chats: ReturnType<typeof chatsFor>): Promise<void> {
      const from = logEntries(a.bot.stderr).length;
      for (const { ask } of chats) expect(await deliver(a.webhook, ask)).toBe(200);
      await until(
        "the answers journaled",
        () =>
          matchingLines(a.bot.stderr, "answer journaled", from).length === chats.length ||
          undefined,
      );
    }

    /** B's sweeps since `from` that judged A's run: each must take A for alive. */
    const sweepsOverA = (from: number) =>
      matchingLines(b.bot.stderr, { msg: SWEEP, runs: 1 }, from);

    describe("one of two bot processes cut off from Redis alone", () => {
      it("keeps what its answers showed: the other takes it for alive while its connections stand", async () => {
        const chats = chatsFor(["finished before", "finished during", "streaming through"], 3001);
        const [before, during, through] = chats;
        // A answers all three; the first ends before the partition.
        await askA(chats);
        chatbot.release((q) => q === before?.question);
        await until("the first answer ended", () => before?.ended());

        links[0].partition();
        try {
          chatbot.release((q) => q === during?.question);
          await until("the second answer ended", () => during?.ended());
          // A's presence lapses (Redis's clock runs on); B's holds.
          await until("A's presence lapsed", async () =>
            (await presencesHeld(onRedis(database))) === 1 ? true : undefined,
          );
          // B's sweeps from then on find A's run and must take it for alive: A's connections to
          // Redis still stand.
          const lapsed = logEntries(b.bot.stderr).length;
          await until(
            "B's sweeps over A's run",
            () => sweepsOverA(lapsed).length >= 2 || undefined,
          );
          expect(sweepsOverA(lapsed).filter((e) => e.dead !== 0)).toEqual([]);
        } finally {
          links[0].mend();
        }
        chatbot.release((q) => q === through?.question);
        await until("the third answer ended", () => through?.ended());

        for (const { question, chat, answer } of chats) {
          expect(answer()?.text).toBe(`Answer to ${question}.`);
          expect(answer()?.history.some((text) => text.includes("interrupted"))).toBe(false);
          expect(fake.botMessages(chat)).toHaveLength(1);
        }
        expect(
          matchingLines(b.bot.stderr, "interrupted answers finished").filter(
            (e) => e.answers !== 0,
          ),
        ).toEqual([]);
      });
    });

    describe("two bot processes through a Redis outage", () => {
      it("leave the answers that ended during the outage as they ended, and take over only a process that is gone", async () => {
        const chats = chatsFor(["early one", "early two", "late one", "late two"], 2001);
        const shown = () =>
          chats.map(({ chat }) => {
            const [answer, ...more] = fake.botMessages(chat);
            const buttons = answer?.replyMarkup?.inline_keyboard
              .flat()
              .map((button) => button.text);
            const cut = answer?.history.some((text) => text.includes("interrupted"));
            return { text: answer?.text, buttons, more: more.length, cut };
          });
        const expected = chats.map(({ question }) => ({
          text: `Answer to ${question}.`,
          buttons: ["👍", "👎"],
          more: 0,
          cut: false,
        }));

        // Four answers stream on A, each on screen and in the journal.
        await askA(chats);

        // Redis is away until both presences lapsed; two answers end meanwhile.
        const cutAt = logEntries(a.bot.stderr).length;
        for (const link of links) link.cut();
        try {
          await a.bot.logLine("store unreachable; retrying in the background", 10_000, cutAt);
          chatbot.release((q) => q.startsWith("early"));
          await until(
            "the early answers ended",
            () => chats.slice(0, 2).every((c) => c.ended()) || undefined,
          );
          // Redis's clock runs on: TAKEOVER_MS after their last renewals, both presences are gone.
          await until("both presences lapsed", async () =>
            (await presencesHeld(onRedis(database))) === 0 ? true : undefined,
          );
        } finally {
          for (const link of links) link.mend();
        }
        // B sweeps for dead processes; A renews once Redis answers. B's judgements of A's run,
        // once it reached Redis again for a lease, take A for alive.
        const mended = logEntries(b.bot.stderr).length;
        await until("B's sweeps over A's run", () => sweepsOverA(mended).length >= 2 || undefined);
        expect(sweepsOverA(mended).filter((e) => e.dead !== 0)).toEqual([]);
        chatbot.release((q) => q.startsWith("late"));
        await until(
          "the late answers ended",
          () => chats.slice(2).every((c) => c.ended()) || undefined,
        );
        expect(shown()).toEqual(expected);

        // A completed every answer: once it is really gone, B has nothing of it to finish.
        // (Each answer's record goes right after its final text; a kill in between would leave
        // it for B to finish, as it should.)
        await until("A's answers out of the journal", async () =>
          (await journalLeft(onRedis(database))).length === 0 ? true : undefined,
        );
        const killed = logEntries(b.bot.stderr).length;
        expect(await a.bot.stop("SIGKILL")).toBeNull();
        // The sweep that took A for dead, its run finished.
        const gone = await b.bot.logLine({ msg: SWEEP, dead: 1 }, 10_000, killed);
        expect(gone.finished).toBe(0);
        expect(shown()).toEqual(expected);
        expect(
          matchingLines(b.bot.stderr, "interrupted answers finished").filter(
            (e) => e.answers !== 0,
          ),
        ).toEqual([]);
      });
    });
  },
);
