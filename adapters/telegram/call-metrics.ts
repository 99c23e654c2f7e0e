import type { Api } from "grammy";
import { callStatusOf, type Metrics } from "../../src/metrics.ts";
import { platformCallTrace } from "../../src/tracing.ts";

/**
 * Counts every Bot API call by method and status, and traces the ones made for a question
 * (src/tracing.ts). A transformer sees each call once, the long polls included, with
 * Telegram's own answer: `ok: false` carries the HTTP status in `error_code`; a throw means
 * no answer came.
 */
export function installCallMetrics(api: Api, metrics: Pick<Metrics, "countPlatformCall">): void {
  api.config.use(async (prev, method, payload, signal) => {
    const traced = platformCallTrace("telegram", method);
    let response: Awaited<ReturnType<typeof prev>>;
    try {
      response = await prev(method, payload, signal);
    } catch (error) {
      metrics.countPlatformCall("telegram", method, "network");
      traced?.("network");
      throw error;
    }
    const status = response.ok ? "ok" : callStatusOf(response.error_code);
    metrics.countPlatformCall("telegram", method, status);
    traced?.(status);
    return response;
  });
}
