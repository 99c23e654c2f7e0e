import { STREAM_GROUP } from "../../src/coordination/work-stream.ts";

/**
 * The answer queue's consumer-group lag as KEDA's redis-streams scaler reads it (XINFO
 * GROUPS, Redis 7+): the questions no process has taken yet. Undefined when the group
 * reports none.
 */
export async function readQueueLag(
  client: { sendCommand(args: string[]): Promise<unknown> },
  stream: string,
): Promise<unknown> {
  const groups = (await client.sendCommand(["XINFO", "GROUPS", stream])) as unknown[][];
  const group = groups.find((fields) => fields[fields.indexOf("name") + 1] === STREAM_GROUP);
  return group?.[group.indexOf("lag") + 1];
}
