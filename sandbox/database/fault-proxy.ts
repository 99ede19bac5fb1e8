// A TCP proxy between a client and PostgreSQL that fails the way a database does in production: `refuse` (a
// failover: new connections refused, open ones reset), `hang` (the server accepts and never answers: bytes are
// swallowed both ways), `drop` (every open connection reset once; new ones pass). `pass` forwards. The mode can
// change at any time; `stop()` closes everything it holds.
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export type DatabaseFaultMode = "pass" | "refuse" | "hang";

export interface DatabaseFaultProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  urlFor(databaseUrl: string): string;
  mode(mode: DatabaseFaultMode): void;
  /** Resets every open connection now (a network blip, a server restart); new ones pass as the mode says. */
  drop(): void;
  /** Connections accepted and refused so far. */
  readonly stats: { accepted: number; refused: number };
  stop(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket | undefined;
}

export async function startDatabaseFaultProxy(target: { host: string; port: number }): Promise<DatabaseFaultProxy> {
  let current: DatabaseFaultMode = "pass";
  const pairs = new Set<Pair>();
  const stats = { accepted: 0, refused: 0 };
  const reset = (pair: Pair) => {
    pair.client.resetAndDestroy();
    pair.server?.resetAndDestroy();
    pairs.delete(pair);
  };
  const server: Server = createServer((client) => {
    client.on("error", () => {});
    if (current === "refuse") {
      stats.refused += 1;
      client.resetAndDestroy();
      return;
    }
    stats.accepted += 1;
    const pair: Pair = { client, server: undefined };
    pairs.add(pair);
    client.once("close", () => {
      pair.server?.destroy();
      pairs.delete(pair);
    });
    // A hang: the connection is accepted and whatever the client sends goes nowhere.
    if (current === "hang") return;
    const upstream = connect(target.port, target.host);
    pair.server = upstream;
    upstream.on("error", () => client.destroy());
    upstream.once("close", () => client.destroy());
    client.on("data", (chunk: Buffer) => {
      if (current !== "hang") upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (current !== "hang") client.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    mode(mode) {
      current = mode;
      // A failover also ends the connections that were open.
      if (mode === "refuse") for (const pair of [...pairs]) reset(pair);
    },
    drop() {
      for (const pair of [...pairs]) reset(pair);
    },
    stats,
    async stop() {
      for (const pair of [...pairs]) reset(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
