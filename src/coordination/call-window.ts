import { type BucketState, type DrawOptions, drawToken } from "./token-bucket.ts";

/**
 * A platform limit counted over a sliding window, as Telegram counts a group's messages ("no
 * more than 20 messages per minute to the same group"): at most `limit` calls in ANY
 * `windowMs`, paced by a bucket of `burst` calls refilled one per `spacingMs` (about one a
 * second in a chat, after a short burst). A token bucket alone cannot keep such a limit and
 * spend it: a bucket that never lets 21 calls into one minute refills at (20 − burst) a
 * minute, so twenty calls wanted at once take a whole minute; the window lets them go one a
 * second, and then none until the minute has passed.
 */
export interface CallWindow {
  limit: number;
  windowMs: number;
  burst: number;
  spacingMs: number;
}

/** What a window keeps between two draws: its calls' times (ascending) and its pace. */
export interface WindowState {
  times: number[];
  pace: BucketState | undefined;
}

/**
 * One draw at `now`: takes a place (wait 0, `now` added, a pace token taken) when both the
 * window and the pace allow a call, else says how long until they will; a draw that waits
 * takes nothing. A hold fills the window so that nothing goes until it ends, while the calls
 * made meanwhile still count afterwards. The Redis store runs the same steps as a script
 * (REDIS_WINDOW_SCRIPT).
 */
export function drawWindow(
  state: WindowState | undefined,
  window: CallWindow,
  now: number,
  options: DrawOptions = {},
): { state: WindowState; waitMs: number } {
  const { limit, windowMs } = window;
  const kept = (state?.times ?? []).filter((t) => t > now - windowMs);
  const holdMs = options.holdMs ?? 0;
  if (holdMs > 0) {
    // Each place counts until the hold ends at the earliest; empty ones are taken until then.
    const floor = now + holdMs - windowMs;
    const held = Array.from({ length: Math.max(0, limit - kept.length) }, () => floor);
    const times = [...held, ...kept.map((t) => Math.max(t, floor))];
    return { state: { times, pace: state?.pace }, waitMs: holdMs };
  }
  // Calls that may lie in the window before this one, leaving `reserve` places after it.
  // Reserved more than the window holds: wait (the reservations' calls end the wait sooner).
  const room = limit - 1 - (options.reserve ?? 0);
  let waitMs = 0;
  if (room < 0) waitMs = (kept.at(-1) ?? now) + windowMs - now;
  else if (kept.length > room) waitMs = (kept[kept.length - room - 1] ?? now) + windowMs - now;
  const paced = drawToken(state?.pace, paceOf(window), now);
  if (waitMs > 0 || paced.waitMs > 0) {
    return {
      state: { times: kept, pace: state?.pace },
      waitMs: Math.ceil(Math.max(waitMs, paced.waitMs)),
    };
  }
  return { state: { times: [...kept, now], pace: paced.state }, waitMs: 0 };
}

function paceOf(window: CallWindow): { intervalMs: number; burst: number } {
  return { intervalMs: window.spacingMs, burst: window.burst };
}

/** How long a window must be kept: until its last call leaves it and its pace is full. */
export function windowKeepMs(state: WindowState, window: CallWindow, now: number): number {
  const last = state.times.at(-1);
  const calls = last === undefined ? 0 : last + window.windowMs - now;
  const pace = state.pace
    ? state.pace.at + (window.burst - state.pace.tokens) * window.spacingMs - now
    : 0;
  return Math.max(0, Math.ceil(calls), Math.ceil(pace));
}

// drawWindow on the server, atomically, on the server's clock. KEYS[1] the window: its pace
// (tokens, at) then its calls' times, comma-separated; ARGV limit, window ms, burst,
// spacing ms, hold ms, reserve. Returns the wait in ms.
export const REDIS_WINDOW_SCRIPT = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local spacing = tonumber(ARGV[4])
local hold = tonumber(ARGV[5])
local reserve = tonumber(ARGV[6])
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local tokens = burst
local at = now
local kept = {}
local saved = redis.call("GET", KEYS[1])
if saved then
  local fields = {}
  for field in string.gmatch(saved, "[^,]+") do fields[#fields + 1] = tonumber(field) end
  tokens = fields[1]
  at = fields[2]
  for i = 3, #fields do
    if fields[i] > now - window then kept[#kept + 1] = fields[i] end
  end
end
local wait = 0
if hold > 0 then
  local floor = now + hold - window
  local held = {}
  for i = 1, limit - #kept do held[#held + 1] = floor end
  for i = 1, #kept do held[#held + 1] = math.max(kept[i], floor) end
  kept = held
  wait = hold
else
  local room = limit - 1 - reserve
  if room < 0 then
    wait = (kept[#kept] or now) + window - now
  elseif #kept > room then
    wait = kept[#kept - room] + window - now
  end
  local paced = math.min(burst, tokens + math.max(0, now - at) / spacing)
  if paced < 1 then wait = math.max(wait, (1 - paced) * spacing) end
  if wait > 0 then
    wait = math.ceil(wait)
  else
    kept[#kept + 1] = now
    tokens = paced - 1
    at = now
  end
end
local keep = math.ceil((burst - math.min(burst, tokens + math.max(0, now - at) / spacing)) * spacing)
if #kept > 0 then keep = math.max(keep, math.ceil(kept[#kept] + window - now)) end
if keep <= 0 then
  redis.call("DEL", KEYS[1])
  return wait
end
local fields = { string.format("%.6f", tokens), string.format("%.3f", at) }
for i = 1, #kept do fields[#fields + 1] = string.format("%.3f", kept[i]) end
redis.call("SET", KEYS[1], table.concat(fields, ","), "PX", keep + 1000)
return wait
`;

/** One window in this process's memory: the embedded store's (whose data one process owns). */
export class LocalWindow {
  readonly window: CallWindow;
  #state: WindowState | undefined;

  constructor(window: CallWindow) {
    this.window = window;
  }

  /** drawWindow on this window, now. */
  draw(options: DrawOptions = {}): number {
    const drawn = drawWindow(this.#state, this.window, performance.now(), options);
    this.#state = drawn.state;
    return drawn.waitMs;
  }

  /** No call counts any more and the pace is full: forgetting the window loses nothing. */
  get full(): boolean {
    return !this.#state || windowKeepMs(this.#state, this.window, performance.now()) === 0;
  }
}

/** Windows by key in this process's memory: the embedded store's. */
export class MemoryWindows {
  readonly #windows = new Map<string, LocalWindow>();

  draw(key: string, window: CallWindow, options: DrawOptions = {}): number {
    let local = this.#windows.get(key);
    if (!local) {
      local = new LocalWindow(window);
      this.#windows.set(key, local);
    }
    return local.draw(options);
  }

  /** Forgets windows whose calls all left them. */
  sweep(): void {
    for (const [key, local] of this.#windows) if (local.full) this.#windows.delete(key);
  }
}
