import { setTimeout as sleep } from "node:timers/promises";
import type { Stopper } from "../coordination/answer-stops.ts";
import { Renewal } from "../coordination/lease.ts";
import type { Coordination } from "../coordination/port.ts";
import { storeFailureLevel } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type { Channel, MessageRef, ReplySurface } from "../ports.ts";
import type { KeyValueStore } from "../store/types.ts";
import {
  decideFate,
  fateOf,
  firstOf,
  QUEUED_TICKET_MS,
  type ShownNotice,
  showQueuedNotice,
  waitForNoticeRef,
} from "./queued-question.ts";
import type { HandedTicket } from "./thread-queue.ts";

export interface QueuedNoticesOptions {
  store: KeyValueStore & Coordination;
  log: Logger;
  /** The deployment's queue (SharedQueue's key). */
  queueKey: string;
  /** This process's id (process-presence.ts): the owner of the notice locks it takes. */
  owner: string;
  /** Gives back the thread ticket of a question withdrawn from the queue (ThreadQueue.giveBack). */
  giveBack(threadKey: string, ticket: HandedTicket): Promise<void>;
  /** How often the places shown are brought up to date (default 1 s: a platform's edit pace). */
  updateMs?: number | undefined;
}

/** A question waiting in the deployment's queue, as its thread's record names it. */
interface WaitingMember {
  id: string;
  askerId: string;
  ticket: HandedTicket | undefined;
}

/** A notice this process posted, kept showing its question's place. */
interface Tracked {
  surface: ReplySurface;
  ref: MessageRef;
  place: number;
  t: Translator;
}

/**
 * The "number N in line" notices of the questions waiting in the deployment's queue: each
 * shows its question's place among those still waiting, kept current by the process that
 * posted it (one read of the queue per round for all of them, so the places shown are those
 * of one moment: no two alike), until its answer takes it over or its asker withdraws it.
 *
 * A question's fate is decided once (queued-question.ts decideFate): its answer begins, or its
 * asker's stop withdraws it, whichever comes first, from any process. An edit of a notice
 * holds the notice's lock, which the answer takes before its own first edit, so a place never
 * lands over an answer.
 */
export class QueuedNotices {
  readonly #options: QueuedNoticesOptions;
  readonly #tracked = new Map<string, Tracked>();
  #renewal: Renewal | undefined;
  #channels: readonly Channel[] = [];

  constructor(options: QueuedNoticesOptions) {
    this.#options = options;
  }

  /** The channels that reopen a notice another process posted (to withdraw its question). */
  useChannels(channels: readonly Channel[]): void {
    this.#channels = channels;
  }

  /**
   * Records question `id` (in `threadKey`, asked by `askerId`) as waiting, so a stop in its
   * thread finds it, and shows its asker its place unless a process took it at once.
   */
  async show(
    id: string,
    threadKey: string,
    waiting: Omit<WaitingMember, "id">,
    surface: ReplySurface,
    t: Translator,
  ): Promise<void> {
    const { store, log } = this.#options;
    await store
      .addToSet(waitingKey(threadKey), memberOf({ id, ...waiting }), QUEUED_TICKET_MS)
      .catch((error: unknown) =>
        log[storeFailureLevel(error)]({ err: error }, "a queued question cannot be withdrawn"),
      );
    const shown = await showQueuedNotice({ store, log }, id, surface, async () => {
      const place = await this.#placeOf(id);
      // Taken or withdrawn meanwhile: no place to show.
      if (place === 0) return undefined;
      return { place, text: t.t("numberInLine", { place }) };
    });
    if (!shown) return;
    this.#tracked.set(id, { surface, ref: shown.ref, place: shown.place, t });
    this.#renewal ??= new Renewal(() => this.#update(), this.#options.updateMs ?? 1_000);
  }

  /**
   * Resolves once an edit of notice `id` under way, from any process, has landed (its lock
   * is free): an answer taking the notice over goes after it.
   */
  async landed(id: string): Promise<void> {
    await withNoticeLock(this.#options, id, async () => undefined);
  }

  /** The question left the queue for good (answered, refused, dropped): a stop no longer finds it. */
  async forget(id: string, threadKey: string, waiting: Omit<WaitingMember, "id">): Promise<void> {
    await this.#options.store
      .removeFromSet(waitingKey(threadKey), memberOf({ id, ...waiting }))
      .catch(() => undefined);
  }

  /**
   * Withdraws the questions waiting in the queue in `threadKey` that `by` may withdraw (their
   * asker's, or every one for an admin): none is answered, each notice says so. Returns how
   * many were withdrawn and how many `by` may not withdraw.
   */
  async withdrawInThread(
    threadKey: string,
    by: Stopper,
    t: Translator,
  ): Promise<{ withdrawn: number; refused: number }> {
    const { store } = this.#options;
    let withdrawn = 0;
    let refused = 0;
    for (const member of await store.setMembers(waitingKey(threadKey))) {
      const waiting = readMember(member);
      if (!waiting) continue;
      if (waiting.askerId !== by.id && !(await by.isAdmin())) {
        refused += 1;
        continue;
      }
      // Its answer began first: the stop is for the running answer (AnswerStops).
      if (!(await decideFate(store, waiting.id, "withdrawn"))) continue;
      withdrawn += 1;
      await store.removeFromSet(waitingKey(threadKey), member);
      if (waiting.ticket) await this.#options.giveBack(threadKey, waiting.ticket);
      await this.#endNotice(waiting.id, by.name, t);
    }
    return { withdrawn, refused };
  }

  /** Its notice ends saying it was withdrawn, whichever process posted it; none is posted later. */
  async #endNotice(id: string, name: string | undefined, t: Translator): Promise<void> {
    const { store } = this.#options;
    const text = name ? t.t("withdrawnBy", { name }) : t.t("withdrawn");
    const tracked = this.#tracked.get(id);
    this.#tracked.delete(id);
    let shown: { surface: ReplySurface; ref: MessageRef } | undefined = tracked;
    if (!shown) {
      const notice: ShownNotice | undefined = await waitForNoticeRef(store, id, "withdrawn");
      const reopened = notice && firstOf(this.#channels, (c) => c.reopen?.(notice.saved));
      shown = reopened?.ref ? { surface: reopened.surface, ref: reopened.ref } : undefined;
    }
    if (shown) await this.#edit(id, shown, text, { final: true });
  }

  /** This process's notices, each brought to its question's place now. */
  async #update(): Promise<void> {
    if (this.#tracked.size === 0) {
      const renewal = this.#renewal;
      this.#renewal = undefined;
      void renewal?.stop();
      return;
    }
    try {
      const places = new Map((await this.#places()).map((id, i) => [id, i + 1]));
      for (const [id, tracked] of this.#tracked) {
        const place = places.get(id) ?? 0;
        // Taken (its answer takes the notice over) or withdrawn: no longer this process's.
        if (place === 0) {
          this.#tracked.delete(id);
          continue;
        }
        if (place === tracked.place) continue;
        tracked.place = place;
        await this.#edit(id, tracked, tracked.t.t("numberInLine", { place }), { final: false });
      }
    } catch (error) {
      const { log } = this.#options;
      log[storeFailureLevel(error)]({ err: error }, "could not show the places in line");
    }
  }

  /** The ids of the questions waiting, next first, without those withdrawn meanwhile. */
  async #places(): Promise<string[]> {
    const { store, queueKey } = this.#options;
    const ids = await store.streamPlaces(queueKey);
    const fates = await fateOf(store, ids);
    return ids.filter((_, i) => fates[i] === undefined);
  }

  async #placeOf(id: string): Promise<number> {
    return (await this.#places()).indexOf(id) + 1;
  }

  /**
   * Edits notice `id` under its lock: a place only while the question's fate is open (its
   * answer may take the notice over any moment), the withdrawn note whatever it is.
   */
  async #edit(
    id: string,
    shown: { surface: ReplySurface; ref: MessageRef },
    text: string,
    { final }: { final: boolean },
  ): Promise<void> {
    const { store, log } = this.#options;
    const { surface, ref } = shown;
    try {
      // The platform's pace first: the lock, which an answer waits for before its first
      // text, is held only to look at the fate and send.
      await surface.budgetFor?.("edit")?.acquire({ urgent: final });
      await withNoticeLock(this.#options, id, async () => {
        if (!final && (await fateOf(store, [id]))[0] !== undefined) return;
        await surface.send({ call: "edit", ref, text: surface.renderer.note(text), final });
      });
    } catch (error) {
      // Only a courtesy: the question keeps its place, or stays withdrawn, all the same.
      log.warn({ err: error }, "could not update a queued question's notice");
    }
  }
}

/**
 * Runs `task` holding notice `id`'s lock; waits for it a few seconds at most (an edit under a
 * platform's 429), and runs without it past that: a stale place is only a courtesy lost.
 */
async function withNoticeLock<T>(
  { store, owner }: { store: Coordination; owner: string },
  id: string,
  task: () => Promise<T>,
): Promise<T> {
  const deadline = performance.now() + LOCK_WAIT_MS;
  let held = false;
  while (!held && performance.now() < deadline) {
    held = await store.claim(lockKey(id), owner, LOCK_MS);
    if (!held) await sleep(LOCK_POLL_MS);
  }
  try {
    return await task();
  } finally {
    if (held) await store.release(lockKey(id), owner).catch(() => undefined);
  }
}

function memberOf(waiting: WaitingMember): string {
  const { id, askerId, ticket } = waiting;
  return JSON.stringify([id, askerId, ticket?.number ?? null, ticket?.owner ?? null]);
}

function readMember(member: string): WaitingMember | undefined {
  try {
    const [id, askerId, number, owner] = JSON.parse(member) as unknown[];
    if (typeof id !== "string" || typeof askerId !== "string") return undefined;
    const ticket =
      typeof number === "number" && typeof owner === "string" ? { number, owner } : undefined;
    return { id, askerId, ticket };
  } catch {
    return undefined;
  }
}

const waitingKey = (threadKey: string) => `queue:waiting:${threadKey}`;
const lockKey = (id: string) => `queue:notice-lock:${id}`;
// Longer than an edit takes (its request times out first), so a held lock is never lost mid-edit.
const LOCK_MS = 15_000;
const LOCK_WAIT_MS = 5_000;
const LOCK_POLL_MS = 25;
