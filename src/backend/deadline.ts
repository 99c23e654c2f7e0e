/** A request's signal that also fires once its time is up. */
export interface Deadline {
  /** Fires when the caller's signal does, or when the time is up. */
  readonly signal: AbortSignal | undefined;
  /** True once the time ran out (rather than the caller giving up). */
  readonly expired: boolean;
  /** Stops the timer and lets go of the caller's signal; call it when the request is over. */
  clear(): void;
}

/**
 * Joins the caller's `signal` with a timer of `ms` (none when undefined). Aborting the
 * signal makes undici close the request's connection, so a backend that never ends its
 * response is hung up on. A listener removed in `clear`, not AbortSignal.any: on Node 20
 * that leaks one per request.
 */
export function startDeadline(signal: AbortSignal | undefined, ms: number | undefined): Deadline {
  if (ms === undefined) return { signal, expired: false, clear: () => {} };
  const controller = new AbortController();
  let expired = false;
  const follow = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", follow, { once: true });
  if (signal?.aborted) follow();
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, ms);
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", follow);
    },
  };
}
