import type { Metrics } from "../metrics.ts";
import type { Store } from "./types.ts";

/** The store with every operation timed and every failure counted in the process metrics. */
export function instrumentStore(store: Store, metrics: Metrics): Store {
  // No async frame: a store call is on every message's path, many times over.
  const measure = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const stop = metrics.storeSeconds.startTimer({ operation });
    let work: Promise<T>;
    try {
      work = run();
    } catch (error) {
      work = Promise.reject(error);
    }
    return work.then(
      (value) => {
        stop();
        return value;
      },
      (error: unknown) => {
        stop();
        metrics.storeErrors.inc();
        throw error;
      },
    );
  };
  return {
    sharedAcrossProcesses: store.sharedAcrossProcesses,
    get: (key) => measure("get", () => store.get(key)),
    getMany: (keys) => measure("getMany", () => store.getMany(keys)),
    set: (key, value, ttlMs) => measure("set", () => store.set(key, value, ttlMs)),
    setMany: (entries) => measure("setMany", () => store.setMany(entries)),
    delete: (key) => measure("delete", () => store.delete(key)),
    claim: (key, owner, ttlMs) => measure("claim", () => store.claim(key, owner, ttlMs)),
    renew: (key, owner, ttlMs) => measure("renew", () => store.renew(key, owner, ttlMs)),
    release: (key, owner) => measure("release", () => store.release(key, owner)),
    addToSet: (key, member, ttlMs) => measure("addToSet", () => store.addToSet(key, member, ttlMs)),
    removeFromSet: (key, member) =>
      measure("removeFromSet", () => store.removeFromSet(key, member)),
    setMembers: (key) => measure("setMembers", () => store.setMembers(key)),
    putInMap: (key, field, value, ttlMs) =>
      measure("putInMap", () => store.putInMap(key, field, value, ttlMs)),
    mapEntries: (key) => measure("mapEntries", () => store.mapEntries(key)),
    takeTicket: (key, owner, hold) =>
      measure("takeTicket", () => store.takeTicket(key, owner, hold)),
    checkTicket: (key, ticket, owner, hold) =>
      measure("checkTicket", () => store.checkTicket(key, ticket, owner, hold)),
    giveBackTicket: (key, ticket, owner) =>
      measure("giveBackTicket", () => store.giveBackTicket(key, ticket, owner)),
    drawToken: (key, bucket, options) =>
      measure("drawToken", () => store.drawToken(key, bucket, options)),
    drawWindow: (key, window, options) =>
      measure("drawWindow", () => store.drawWindow(key, window, options)),
    streamAdd: (key, value, maxWaiting) =>
      measure("streamAdd", () => store.streamAdd(key, value, maxWaiting)),
    streamTake: (key, consumer, count) =>
      measure("streamTake", () => store.streamTake(key, consumer, count)),
    streamTakeOver: (key, consumer, minIdleMs, count) =>
      measure("streamTakeOver", () => store.streamTakeOver(key, consumer, minIdleMs, count)),
    streamHold: (key, consumer, ids) =>
      measure("streamHold", () => store.streamHold(key, consumer, ids)),
    streamFinish: (key, consumer, id) =>
      measure("streamFinish", () => store.streamFinish(key, consumer, id)),
    streamWaiting: (key) => measure("streamWaiting", () => store.streamWaiting(key)),
    streamPlaces: (key) => measure("streamPlaces", () => store.streamPlaces(key)),
    streamWatch: (key, onAdd) => store.streamWatch(key, onAdd),
    ping: () => measure("ping", () => store.ping()),
    close: () => store.close(),
  };
}
