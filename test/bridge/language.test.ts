import { afterEach, describe, expect, it } from "vitest";
import { type Harness, incoming, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness(options);
  return harness;
}

describe("the bot's own texts in the channel's language", () => {
  it("after /language fr: the cut note, an error, the queued notice and /help are French", async () => {
    // One answer at a time: a question asked while another is answered waits for room.
    const h = await start({ bridge: { maxActive: 1, maxQueued: 10 } });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/language fr"), surface);

    await h.bridge.handle(incoming("tell me #cut"), surface);
    expect(surface.messages.at(-1)).toMatch(/\n\n⚠️ réponse coupée : connexion perdue$/);

    await h.bridge.handle(incoming("#status=500"), surface);
    expect(surface.messages.at(-1)).toBe(
      "⚠️ le service du chatbot a échoué (HTTP 500) ; réessayez plus tard",
    );

    // Two threads: the question that waits for room is told its place (on a surface another
    // process could answer it on).
    const waiting = Object.assign(new MemorySurface(), { persistRef: (ref: unknown) => ref });
    await Promise.all([
      h.bridge.handle(incoming("first #delay=1000"), surface),
      h.bridge.handle(
        incoming("second", { threadKey: "test:channel-1:thread-2", replyPlace: "thread-2" }),
        waiting,
      ),
    ]);
    expect(waiting.calls.map((c) => c.text)).toContain(
      "⏳ beaucoup de questions en ce moment : la vôtre est la 1ᵉ dans la file",
    );

    await h.bridge.handle(incoming("/help"), surface);
    const help = surface.notices.at(-1)?.text.split("\n");
    expect(help?.[0]).toBe("Posez-moi n’importe quelle question, ou utilisez une commande :");
    expect(help?.[1]).toMatch(/^\/help +affiche la liste des commandes$/);
  });

  it("with no language set, speaks the person's own; the chatbot still detects (auto)", async () => {
    const h = await start();
    const surface = new MemorySurface();
    const german = { authorLocale: async () => "de-AT" };
    await h.bridge.handle(incoming("/bogus", german), surface);
    expect(surface.notices.at(-1)?.text).toMatch(/^Unbekannter Befehl \/bogus\.\n/);
    await h.bridge.handle(incoming("", german), surface);
    expect(surface.notices.at(-1)?.text).toBe("Bitte schreiben Sie eine Frage.");
    await h.bridge.handle(incoming("a question", german), surface);
    const chats = h.simulator.requests.filter((r) => r.route === "chat");
    expect(chats.at(-1)?.chat?.language).toBe("auto");
    await h.bridge.handle(incoming("", { authorLocale: async () => "xx" }), surface);
    expect(surface.notices.at(-1)?.text).toBe("Please write a question.");
  });

  it("a set language wins over the person's", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/language ru"), surface);
    await h.bridge.handle(incoming("", { authorLocale: async () => "de" }), surface);
    expect(surface.notices.at(-1)?.text).toBe("Пожалуйста, напишите вопрос.");
  });
});
