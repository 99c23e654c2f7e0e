/**
 * A line kept in the store: whoever takes a ticket first is served first, across every
 * process sharing the store (a ticket lock, the fair version of a plain lock). The bridge
 * lines up each thread's questions in one, so a thread is answered in the order its
 * questions arrived, whichever process got each.
 *
 * Why not a plain lock: a process that finishes an answer can take the lock again for its
 * next local question before another process's poll sees it free, so a question that came
 * in later on that process overtakes one waiting elsewhere (issue 12: asked q1 on A, q2 on B,
 * q3 on A; answered q1, q3, q2). A ticket is taken on arrival, so the order is fixed then.
 *
 * A ticket holds while its process lives (its presence, process-presence.ts: no renewal of
 * its own), or, handed to another process with its question, for a time its holder renews.
 * A ticket given back, or whose holder died (its presence gone, its time run out), is skipped
 * by the next check, so a dead holder holds the line up for one presence lease at most.
 * Tickets carry an owner, so a holder whose ticket lapsed never mistakes a later ticket of
 * the same number for its own.
 */

/**
 * Where a ticket stands: `served` (its turn: nothing alive is ahead), `waiting` (a live
 * ticket is ahead), `lapsed` (its holder was taken for dead before this check: the line went
 * on without it, and it is no longer in line).
 */
export type TicketStatus = "served" | "waiting" | "lapsed";

/**
 * How long a ticket holds: `ms` from now (a number), or while process `process`'s presence
 * holds (process-presence.ts).
 */
export type TicketHold = number | { process: string };

/**
 * A ticket just taken: its number, and `served` when nothing was left ahead of it (the line
 * was empty, or every ticket before it had gone back), so the common case needs no check.
 */
export interface TakenTicket {
  number: number;
  served: boolean;
}

interface Ticket {
  owner: string;
  /** When its time ends, on the clock the store uses; Infinity while its process lives. */
  endsAt: number;
}

/** One line: `next` the last ticket taken, `serving` the first one not yet passed. */
interface LineState {
  next: number;
  serving: number;
  tickets: Map<number, Ticket>;
}

/**
 * Lines by key in this process's memory: the embedded store's. Its data belongs to one
 * process, and a line only matters while that process runs, so it needs no disk, and a
 * process killed mid-answer leaves no ticket to wait for after its restart. A ticket held
 * while its process lives holds until given back: its process is this one.
 */
export class MemoryLines {
  readonly #lines = new Map<string, LineState>();

  take(key: string, owner: string, hold: TicketHold): TakenTicket {
    let line = this.#lines.get(key);
    if (!line) {
      line = { next: 0, serving: 1, tickets: new Map() };
      this.#lines.set(key, line);
    }
    line.next += 1;
    line.tickets.set(line.next, { owner, endsAt: endsAt(hold, performance.now()) });
    return { number: line.next, served: line.serving === line.next };
  }

  check(key: string, number: number, owner: string, hold?: TicketHold): TicketStatus {
    const line = this.#lines.get(key);
    const ticket = line?.tickets.get(number);
    if (!line || ticket?.owner !== owner) return "lapsed";
    const now = performance.now();
    if (ticket.endsAt <= now) {
      this.#drop(key, line, number);
      return "lapsed";
    }
    if (hold !== undefined) ticket.endsAt = endsAt(hold, now);
    while (line.serving < number) {
      const ahead = line.tickets.get(line.serving);
      if (ahead && ahead.endsAt > now) break;
      line.tickets.delete(line.serving);
      line.serving += 1;
    }
    return line.serving >= number ? "served" : "waiting";
  }

  giveBack(key: string, number: number, owner: string): void {
    const line = this.#lines.get(key);
    if (line?.tickets.get(number)?.owner === owner) this.#drop(key, line, number);
  }

  /** Forgets lines whose every ticket lapsed (their holders stopped without giving back). */
  sweep(): void {
    const now = performance.now();
    for (const [key, line] of this.#lines) {
      if ([...line.tickets.values()].every((t) => t.endsAt <= now)) this.#lines.delete(key);
    }
  }

  #drop(key: string, line: LineState, number: number): void {
    line.tickets.delete(number);
    if (line.tickets.size === 0) this.#lines.delete(key);
  }
}

function endsAt(hold: TicketHold, now: number): number {
  return typeof hold === "number" ? now + hold : Number.POSITIVE_INFINITY;
}

/**
 * A hold as the scripts take it: the lease in ms ("0" while the process lives) and the
 * process ("" for a lease); "-1" for no hold (a check that changes nothing).
 */
export function scriptHold(hold: TicketHold | undefined): [lease: string, process: string] {
  if (hold === undefined) return ["-1", ""];
  return typeof hold === "number" ? [String(hold), ""] : ["0", hold.process];
}

/**
 * How long a line holding a ticket of a live process lives past its last take or check:
 * longer than any answer (CHATBOT_ANSWER_TIMEOUT_MS is minutes), so only a line whose every
 * holder died and that nobody came back to ends by it.
 */
const LINE_MS = 60 * 60 * 1000;

// The same steps as MemoryLines, on the server, atomically, on the server's clock. KEYS[1] is
// the line: a hash of "next", "serving" and one field per ticket, "<lease end ms>|<process>|
// <owner>": a lease end of 0 holds while the process's presence key exists. The hash lives as
// long as its longest lease (LINE_MS while a process holds a ticket) and is deleted when its
// last ticket goes back.
const PRELUDE = `
local line = KEYS[1]
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function ticket(value)
  if not value then return nil end
  local bar = string.find(value, "|", 1, true)
  local second = string.find(value, "|", bar + 1, true)
  local endsAt = tonumber(string.sub(value, 1, bar - 1))
  -- A field of an earlier version, "<lease end ms>|<owner>": a lease.
  if not second then return { endsAt = endsAt, process = "", owner = string.sub(value, bar + 1) } end
  return {
    endsAt = endsAt,
    process = string.sub(value, bar + 1, second - 1),
    owner = string.sub(value, second + 1),
  }
end
local function field(owner, lease, process)
  if lease > 0 then return string.format("%d||%s", now + lease, owner) end
  return string.format("0|%s|%s", process, owner)
end
local function keep(lease)
  local ms = ${LINE_MS}
  if lease > 0 then ms = lease end
  if redis.call("PTTL", line) < ms then redis.call("PEXPIRE", line, ms) end
end
`;

/**
 * ARGV owner, lease ms (0: while the process lives), process. Returns the ticket's number,
 * negative when it is served at once.
 */
export const REDIS_TAKE_TICKET_SCRIPT = `${PRELUDE}
local lease = tonumber(ARGV[2])
local number = redis.call("HINCRBY", line, "next", 1)
local first = redis.call("HSETNX", line, "serving", number) == 1
redis.call("HSET", line, number, field(ARGV[1], lease, ARGV[3]))
keep(lease)
if first or tonumber(redis.call("HGET", line, "serving")) == number then return -number end
return number
`;

/** The take script's reply as a ticket. */
export function takenTicketOf(reply: unknown): TakenTicket {
  const code = Number(reply);
  return { number: Math.abs(code), served: code < 0 };
}

/**
 * ARGV the prefix of presence keys (the store's namespace and "process:"), ticket, owner,
 * lease ms (-1: the hold stays; 0: while the process lives), process. Returns 1 served,
 * 0 waiting, -1 lapsed.
 */
export const REDIS_CHECK_TICKET_SCRIPT = `${PRELUDE}
local presence = ARGV[1]
local number = tonumber(ARGV[2])
local lease = tonumber(ARGV[4])
local function alive(held)
  if held.endsAt > 0 then return held.endsAt > now end
  return redis.call("EXISTS", presence .. held.process) == 1
end
local mine = ticket(redis.call("HGET", line, number))
if not mine or mine.owner ~= ARGV[3] then return -1 end
if not alive(mine) then
  redis.call("HDEL", line, number)
  if redis.call("HLEN", line) <= 2 then redis.call("DEL", line) end
  return -1
end
if lease >= 0 then
  redis.call("HSET", line, number, field(mine.owner, lease, ARGV[5]))
  keep(lease)
elseif mine.endsAt > 0 then
  keep(mine.endsAt - now)
else
  keep(0)
end
local serving = tonumber(redis.call("HGET", line, "serving")) or number
while serving < number do
  local ahead = ticket(redis.call("HGET", line, serving))
  if ahead and alive(ahead) then break end
  redis.call("HDEL", line, serving)
  serving = serving + 1
end
redis.call("HSET", line, "serving", serving)
if serving >= number then return 1 end
return 0
`;

/** ARGV ticket, owner. */
export const REDIS_GIVE_BACK_TICKET_SCRIPT = `${PRELUDE}
local held = ticket(redis.call("HGET", line, ARGV[1]))
if held and held.owner == ARGV[2] then redis.call("HDEL", line, ARGV[1]) end
if redis.call("HLEN", line) <= 2 then redis.call("DEL", line) end
return 0
`;

/** The check script's reply as a status. */
export function ticketStatusOf(reply: unknown): TicketStatus {
  const code = Number(reply);
  return code === 1 ? "served" : code === 0 ? "waiting" : "lapsed";
}
