import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { Api } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { installErrorBoundary, TelegramNetworkError } from "../../adapters/telegram/errors.ts";
import { installLeanCalls } from "../../adapters/telegram/lean-calls.ts";

const TOKEN = "123456:lean-calls-secret";
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A Bot API that takes each call and never answers it. */
async function silentApi(): Promise<string> {
  const server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => server.closeAllConnections());
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the answer's own Bot API calls", () => {
  it("give up on a call Telegram never answers within the client's timeout, saying so without the token", async () => {
    const apiRoot = await silentApi();
    const api = new Api(TOKEN, { apiRoot });
    installLeanCalls(api, { apiRoot, token: TOKEN, timeoutSeconds: 0.2 });
    installErrorBoundary(api);
    const started = performance.now();
    const error = await api.sendMessage(1, "hello").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TelegramNetworkError);
    expect((error as Error).message).toBe("Telegram sendMessage: network request failed (timeout)");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(TOKEN);
  });
});
