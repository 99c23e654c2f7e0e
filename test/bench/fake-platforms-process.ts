import { request } from "undici";
import type { PlatformReport } from "./answer-log.ts";
import { type ChildServer, printedUrl, startChildServer } from "./child-server.ts";

/** The fake platforms (fake-platforms.ts) in a process of their own, seen from the bench. */
export interface FakePlatforms {
  url: string;
  pid: number | undefined;
  /** Resolves true when the conversation's open answer closes, false after `timeoutMs`. */
  closed(key: string, timeoutMs: number): Promise<boolean>;
  report(): Promise<PlatformReport>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakePlatformsProcess(): Promise<FakePlatforms> {
  const child: ChildServer<{ url: string }> = await startChildServer(
    "test/bench/fake-platforms.ts",
    {},
    printedUrl,
  );
  const { url } = child.info;
  const waiting = new Map<string, () => void>();
  const feed = new AbortController();
  try {
    // No body timeout: the feed may stay quiet between the warm-up and the load.
    const response = await request(`${url}/finals`, { signal: feed.signal, bodyTimeout: 0 });
    void readLines(response.body, (key) => waiting.get(key)?.());
  } catch (error) {
    await child.close();
    throw error;
  }
  return {
    url,
    pid: child.pid,
    closed(key, timeoutMs) {
      return new Promise((resolve) => {
        const done = (ok: boolean) => {
          clearTimeout(timer);
          waiting.delete(key);
          resolve(ok);
        };
        const timer = setTimeout(() => done(false), timeoutMs);
        waiting.set(key, () => done(true));
      });
    },
    async report() {
      const response = await request(`${url}/report`);
      return (await response.body.json()) as PlatformReport;
    },
    async reset() {
      await (await request(`${url}/reset`, { method: "POST" })).body.dump();
    },
    async close() {
      feed.abort();
      await child.close();
    },
  };
}

/** Calls `onLine` for each line of a streamed body; ends quietly when the body is cut. */
async function readLines(body: AsyncIterable<Buffer>, onLine: (line: string) => void) {
  let rest = "";
  try {
    for await (const chunk of body) {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    }
  } catch {
    // Aborted at close.
  }
}
