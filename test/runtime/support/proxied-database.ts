// A scratch database on real PostgreSQL behind the sandbox's fault proxy, for one test file, and every uncaught
// exception while it is up (a `pg` 'error' with no listener is one: issue 30, defect 2). Hooks registered here.
import { afterAll, beforeAll } from "vitest";
import { startDatabaseFaultProxy, type DatabaseFaultProxy } from "../../../sandbox/database/index.js";
import { createScratchDatabase, postgresServerUrl } from "../guard/databases.js";

export interface ProxiedDatabase {
  /** The scratch database itself. */
  url: string;
  proxy: DatabaseFaultProxy;
  /** Uncaught exceptions seen so far. */
  uncaught: unknown[];
}

/** Never skipped: without TEST_DATABASE_URL a server is started for this process, or the tests fail saying why. */
export function useProxiedDatabase(): ProxiedDatabase {
  const state = { uncaught: [] as unknown[] } as ProxiedDatabase;
  let drop: (() => Promise<void>) | undefined;
  const record = (error: unknown) => state.uncaught.push(error);
  beforeAll(async () => {
    const database = await createScratchDatabase(await postgresServerUrl());
    drop = database.drop;
    state.url = database.url;
    const url = new URL(database.url);
    state.proxy = await startDatabaseFaultProxy({ host: url.hostname, port: Number(url.port || 5432) });
    process.on("uncaughtException", record);
  });
  afterAll(async () => {
    process.off("uncaughtException", record);
    await state.proxy?.stop();
    await drop?.();
  });
  return state;
}
