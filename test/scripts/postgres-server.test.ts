// PostgreSQL tests run without the wrapper start their own server through it, or fail saying why: never a skip.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { startPostgresServer } from "../support/postgres-server.js";

describe("startPostgresServer", () => {
  it("starts a server through with-postgres.mjs that a client can use", async () => {
    const url = await startPostgresServer({ ...process.env, CHARGEGUARD_POSTGRES: "auto" });
    expect(new URL(url).hostname).toBe("127.0.0.1");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });

  it("fails with the wrapper's reason when no server can be started", async () => {
    await expect(startPostgresServer({ ...process.env, CHARGEGUARD_POSTGRES: "nowhere" })).rejects.toThrow(
      /PostgreSQL tests need a server and none could be started .*CHARGEGUARD_POSTGRES must be auto, system or embedded/s,
    );
  });
});
