import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A bench server listening on 127.0.0.1: its URL, and a close that cuts open connections. */
export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Listens on a free port of 127.0.0.1. `close` runs `beforeClose` (to end long-lived
 * responses), then closes the server and every connection still open, so no client keeps
 * the process alive.
 */
export async function listenOnLoopback(
  server: Server,
  beforeClose?: () => void,
): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        beforeClose?.();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
