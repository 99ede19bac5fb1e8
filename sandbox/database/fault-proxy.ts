// A TCP proxy between a client and PostgreSQL that fails the way a database does in production: `refuse` (a
// failover: new connections refused, open ones reset), `hang` (the server accepts and never answers: bytes are
// swallowed both ways), `drop` (every open connection reset once; new ones pass). `pass` forwards. The mode can
// change at any time, and a change can cut every open connection with it (`mode("pass", { cut: true })`: a hang that
// ends in a standby takeover, where the clients find their connections gone, not answering again). `idleCut` resets
// (or silently forgets) a connection that carried nothing for a while, as Azure's gateway, load balancer and NAT do
// (4 minutes by default there). `stop()` closes everything it holds.
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export type DatabaseFaultMode = "pass" | "refuse" | "hang";

export interface IdleCut {
  /** A connection with no bytes either way for this long is cut. */
  afterMs: number;
  /**
   * Forgotten without a reset (a NAT that drops the flow: the client's next bytes go nowhere and it finds out only by
   * its own timeouts or keepalives); default false: reset (a gateway or a load balancer with TCP reset on idle).
   */
  silently?: boolean;
}

export interface DatabaseFaultProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  urlFor(databaseUrl: string): string;
  /**
   * Switches the mode. `refuse` also resets every open connection; `cut: true` closes every open one as a server that
   * goes away does (the client reads an end of stream: `pg`'s "Connection terminated unexpectedly").
   */
  mode(mode: DatabaseFaultMode, options?: { cut?: boolean }): void;
  /** Resets every open connection now (a network blip, a server restart); new ones pass as the mode says. */
  drop(): void;
  /** From now on, cuts connections idle for `afterMs`; `undefined` stops cutting. */
  idleCut(cut: IdleCut | undefined): void;
  /** Connections accepted and refused so far; closed by a mode change's `cut`; cut for being idle. */
  readonly stats: { accepted: number; refused: number; cut: number; idleCut: number };
  stop(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket | undefined;
  /** Date.now() of the last bytes either way (swallowed ones too: a NAT sees the packets). */
  activeAt: number;
  /** Cut silently: nothing passes either way any more. */
  severed: boolean;
}

export async function startDatabaseFaultProxy(target: { host: string; port: number }): Promise<DatabaseFaultProxy> {
  let current: DatabaseFaultMode = "pass";
  const pairs = new Set<Pair>();
  const stats = { accepted: 0, refused: 0, cut: 0, idleCut: 0 };
  const reset = (pair: Pair) => {
    pair.client.resetAndDestroy();
    pair.server?.resetAndDestroy();
    pairs.delete(pair);
  };
  const resetAll = () => {
    for (const pair of [...pairs]) reset(pair);
  };
  // A server that goes away (a standby takes over) closes its sockets: the client reads an end, not a reset.
  const closeAll = () => {
    for (const pair of [...pairs]) {
      stats.cut += 1;
      // Nothing more passes; a FIN each way (a close with bytes unread would be a reset), destroyed if never acknowledged.
      pair.severed = true;
      pair.client.end();
      pair.server?.end();
      setTimeout(() => reset(pair), 1_000).unref();
      pairs.delete(pair);
    }
  };
  const server: Server = createServer((client) => {
    client.on("error", () => {});
    if (current === "refuse") {
      stats.refused += 1;
      client.resetAndDestroy();
      return;
    }
    stats.accepted += 1;
    const pair: Pair = { client, server: undefined, activeAt: Date.now(), severed: false };
    pairs.add(pair);
    client.once("close", () => {
      pair.server?.destroy();
      pairs.delete(pair);
    });
    client.on("data", () => (pair.activeAt = Date.now()));
    // A hang: the connection is accepted and whatever the client sends goes nowhere.
    if (current === "hang") return;
    forward(pair, target, () => current !== "hang" && !pair.severed);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const idle = idleCutter(pairs, stats, reset);
  return {
    port,
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    mode(mode, options = {}) {
      current = mode;
      // A failover also ends the connections that were open.
      if (mode === "refuse") resetAll();
      else if (options.cut === true) closeAll();
    },
    drop: resetAll,
    idleCut: idle.set,
    stats,
    async stop() {
      idle.set(undefined);
      resetAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Connects the pair to PostgreSQL and passes bytes both ways while `passes()`. */
function forward(pair: Pair, target: { host: string; port: number }, passes: () => boolean): void {
  const { client } = pair;
  const upstream = connect(target.port, target.host);
  pair.server = upstream;
  upstream.on("error", () => client.destroy());
  upstream.once("close", () => client.destroy());
  client.on("data", (chunk: Buffer) => {
    if (passes()) upstream.write(chunk);
  });
  upstream.on("data", (chunk: Buffer) => {
    pair.activeAt = Date.now();
    if (passes()) client.write(chunk);
  });
}

/** A sweep, a few times per `afterMs`, that cuts the connections idle for at least `afterMs`. */
function idleCutter(pairs: Set<Pair>, stats: { idleCut: number }, reset: (pair: Pair) => void): { set(cut: IdleCut | undefined): void } {
  let sweep: NodeJS.Timeout | undefined;
  return {
    set(cut) {
      clearInterval(sweep);
      sweep = undefined;
      if (cut === undefined) return;
      if (!(cut.afterMs > 0)) throw new Error(`idleCut: afterMs must be a positive number of milliseconds, got ${cut.afterMs}`);
      sweep = setInterval(
        () => {
          const now = Date.now();
          for (const pair of [...pairs]) {
            if (pair.severed || now - pair.activeAt < cut.afterMs) continue;
            stats.idleCut += 1;
            if (cut.silently === true) pair.severed = true;
            else reset(pair);
          }
        },
        Math.max(10, Math.min(1_000, cut.afterMs / 4)),
      );
      sweep.unref();
    },
  };
}
