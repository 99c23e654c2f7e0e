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
  // An HTML message, and a rich one (Bot API 10.1), as answers go where the server has them.
  const sends = {
    sendMessage: (api: Api) => api.sendMessage(1, "hello"),
    sendRichMessage: (api: Api) =>
      api.raw.sendRichMessage({ chat_id: 1, rich_message: { html: "<p>hello</p>" } }),
  };
  for (const [method, send] of Object.entries(sends)) {
    it(`give up on a ${method} Telegram never answers within the client's timeout, saying so without the token`, async () => {
      const apiRoot = await silentApi();
      const api = new Api(TOKEN, { apiRoot });
      installLeanCalls(api, { apiRoot, token: TOKEN, timeoutSeconds: 0.2 });
      installErrorBoundary(api);
      const started = performance.now();
      const error = await send(api).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TelegramNetworkError);
      expect((error as Error).message).toBe(`Telegram ${method}: network request failed (timeout)`);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    });
  }
});
