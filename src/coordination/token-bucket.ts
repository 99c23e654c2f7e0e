/**
 * A token bucket kept in the store, so that every process drawing on one platform budget
 * (a Slack workspace's chat.update allowance, a Telegram group's) shares it. Tokens refill
 * one per `intervalMs` up to `burst`.
 */
export interface TokenBucket {
  intervalMs: number;
  burst: number;
}

/** One draw from a bucket or a call window. */
export interface DrawOptions {
  /** A platform's "retry after": no call for that long (several holds make one wait). */
  holdMs?: number;
  /**
   * Calls to leave for others (answers that still owe their first or final text): the call
   * goes only while `reserve` more could follow it at once. A bucket keeps at most all but
   * one of its burst, so routine calls still go at its refill rate.
   */
  reserve?: number;
  /**
   * Tokens to take beside this draw's, for later draws of the same process to spend without
   * a store call (StoreBucket): taken only while the bucket stays at least half full after
   * them, so a busy budget is never hoarded.
   */
  ahead?: number;
}

/** What one draw gave: its wait (0: the call may go now), and the tokens taken ahead. */
export interface Drawn {
  waitMs: number;
  ahead: number;
}

/** What a bucket holds between two draws. */
export interface BucketState {
  tokens: number;
  /** When `tokens` was computed, in ms on the clock the store uses. */
  at: number;
}

/**
 * One draw at `now`: takes a token when there is one beside those kept for `reserve` (wait
 * 0), else says how long until there will be; a draw that waits takes nothing. `holdMs`
 * instead empties the bucket for that long (a platform's "retry after"): several holds for
 * the same moment make one wait, not a sum. The Redis store runs the same steps as a script
 * (REDIS_DRAW_SCRIPT).
 */
export function drawToken(
  state: BucketState | undefined,
  bucket: TokenBucket,
  now: number,
  options: DrawOptions = {},
): { state: BucketState } & Drawn {
  const holdMs = options.holdMs ?? 0;
  const needed = 1 + Math.min(options.reserve ?? 0, bucket.burst - 1);
  const elapsed = state ? Math.max(0, now - state.at) : 0;
  let tokens = Math.min(
    bucket.burst,
    (state?.tokens ?? bucket.burst) + elapsed / bucket.intervalMs,
  );
  let waitMs = 0;
  let ahead = 0;
  if (holdMs > 0) {
    tokens = Math.min(tokens, -holdMs / bucket.intervalMs);
    waitMs = holdMs;
  } else if (tokens >= needed) {
    tokens -= 1;
    ahead = Math.max(0, Math.min(options.ahead ?? 0, Math.floor(tokens - bucket.burst / 2)));
    tokens -= ahead;
  } else {
    waitMs = Math.ceil((needed - tokens) * bucket.intervalMs);
  }
  return { state: { tokens, at: now }, waitMs, ahead };
}

/** How long a bucket must be kept: until it would be full again. */
export function refillMs(state: BucketState, bucket: TokenBucket): number {
  return Math.ceil((bucket.burst - state.tokens) * bucket.intervalMs);
}

// drawToken on the server, atomically, on the server's clock (processes' clocks may differ).
// KEYS[1] the bucket, "<tokens>,<at>" in one string that lapses once the bucket is full again
// (three commands a draw: TIME, GET, SET). ARGV interval ms, burst, hold ms, reserve, ahead.
// Returns { wait in ms, tokens taken ahead }.
export const REDIS_DRAW_SCRIPT = `
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local hold = tonumber(ARGV[3])
local needed = 1 + math.min(tonumber(ARGV[4]), burst - 1)
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local tokens, at = burst, now
-- pcall: a bucket an older version kept as a hash reads as none (SET then replaces it).
local saved = redis.pcall("GET", KEYS[1])
if type(saved) == "string" then
  local comma = string.find(saved, ",", 1, true)
  if comma then
    tokens = tonumber(string.sub(saved, 1, comma - 1)) or burst
    at = tonumber(string.sub(saved, comma + 1)) or now
  end
end
tokens = math.min(burst, tokens + math.max(0, now - at) / interval)
local wait = 0
local ahead = 0
if hold > 0 then
  tokens = math.min(tokens, -hold / interval)
  wait = hold
elseif tokens >= needed then
  tokens = tokens - 1
  ahead = math.max(0, math.min(tonumber(ARGV[5]), math.floor(tokens - burst / 2)))
  tokens = tokens - ahead
else
  wait = math.ceil((needed - tokens) * interval)
end
redis.call("SET", KEYS[1], tostring(tokens) .. "," .. tostring(now), "PX", math.ceil((burst - tokens) * interval) + 1000)
return { wait, ahead }
`;

/**
 * One bucket in this process's memory: a budget that only this process draws on, or the
 * embedded store's (whose data one process owns).
 */
export class LocalBucket {
  readonly bucket: TokenBucket;
  #state: BucketState | undefined;
  #fullAt = Number.NEGATIVE_INFINITY;

  constructor(bucket: TokenBucket) {
    this.bucket = bucket;
  }

  /** drawToken on this bucket, now. */
  take(options: DrawOptions = {}): Drawn {
    const now = performance.now();
    const { state, ...drawn } = drawToken(this.#state, this.bucket, now, options);
    this.#state = state;
    this.#fullAt = now + refillMs(state, this.bucket);
    return drawn;
  }

  /** take() for a caller that takes nothing ahead: the wait alone. */
  draw(options: DrawOptions = {}): number {
    return this.take(options).waitMs;
  }

  /** Full again: forgetting the bucket loses nothing, since a new one starts full. */
  get full(): boolean {
    return performance.now() >= this.#fullAt;
  }
}

/** Buckets by key in this process's memory: the embedded store's. */
export class MemoryBuckets {
  readonly #buckets = new Map<string, LocalBucket>();

  draw(key: string, bucket: TokenBucket, options: DrawOptions = {}): Drawn {
    let local = this.#buckets.get(key);
    if (!local) {
      local = new LocalBucket(bucket);
      this.#buckets.set(key, local);
    }
    return local.take(options);
  }

  /** Forgets buckets that are full again. */
  sweep(): void {
    for (const [key, local] of this.#buckets) if (local.full) this.#buckets.delete(key);
  }
}
