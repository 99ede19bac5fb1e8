// Entra sign-in for the guard's pool, on the real test PostgreSQL: a stand-in token source plays Microsoft Entra
// (each token it issues becomes the role's only valid password, as an expired Entra token stops being accepted), and
// the server requires a password for that role. The pool must reconnect with a fresh token once the old one
// expired; the stale token must no longer get in.
import { randomUUID } from "node:crypto";
import type { AccessToken, TokenCredential } from "@azure/identity";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Guard } from "../../../runtime/guard/guard.js";
import { EntraTokenError } from "../../../runtime/core/errors.js";
import { entraPassword, POSTGRES_ENTRA_SCOPE } from "../../../runtime/guard/entra-password.js";
import { pgClient } from "../../../runtime/guard/pg-client.js";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";

const HOUR_MS = 3_600_000;

async function asAdmin<T>(serverUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Stands in for Entra: one current token, valid for an hour from when it was issued; `rotate()` issues the next one
 * and makes it the role's only password (the old one stops signing in, as an expired Entra token does). The server
 * reads a role's password from its catalog when a backend starts, so the rotation happens before connections are
 * made, never inside a handshake.
 */
class StandInEntra implements TokenCredential {
  readonly scopes: string[] = [];
  readonly tokens: string[] = [];
  /** getToken calls. */
  requests = 0;
  private issuedAt = 0;
  constructor(
    private readonly serverUrl: string,
    private readonly role: string,
    private readonly clock: { now(): number },
  ) {}

  async rotate(): Promise<string> {
    const token = `entra-token-${this.tokens.length + 1}-${randomUUID()}`;
    await asAdmin(this.serverUrl, (admin) => admin.query(`ALTER ROLE ${this.role} PASSWORD ${literal(token)}`));
    this.tokens.push(token);
    this.issuedAt = this.clock.now();
    return token;
  }

  async getToken(scopes: string | string[]): Promise<AccessToken> {
    this.scopes.push(...[scopes].flat());
    this.requests += 1;
    const token = this.tokens.at(-1);
    if (token === undefined) throw new Error("rotate() first");
    return { token, expiresOnTimestamp: this.issuedAt + HOUR_MS };
  }
}

describe("the guard's pool signs in with Entra tokens (PostgreSQL)", () => {
  let serverUrl: string;
  const role = `entra_app_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  let database: { url: string; drop(): Promise<void> };
  let appUrl: string;
  let originalHba: string;
  let hbaFile: string;

  /** Requires a password of the test role over TCP; every other role keeps the server's own rules. */
  async function writeHba(lines: string[]) {
    const rows = lines.map(literal).join(", ");
    await asAdmin(serverUrl, async (admin) => {
      await admin.query(`COPY (SELECT unnest(ARRAY[${rows}]::text[])) TO ${literal(hbaFile)}`);
      await admin.query("SELECT pg_reload_conf()");
    });
  }

  beforeAll(async () => {
    serverUrl = await postgresServerUrl();
    database = await createScratchDatabase(serverUrl);
    await asAdmin(serverUrl, async (admin) => {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`ALTER DATABASE ${new URL(database.url).pathname.slice(1)} OWNER TO ${role}`);
      hbaFile = String((await admin.query("SHOW hba_file")).rows[0]?.hba_file);
      originalHba = String((await admin.query("SELECT pg_read_file($1) AS text", [hbaFile])).rows[0]?.text);
    });
    const rules = originalHba.split("\n").map((line) => line.replace(/\s+/g, " ").trim()).filter((line) => line !== "" && !line.startsWith("#"));
    // Cleartext password auth, as Azure's Entra sign-in uses (the token is the password, sent over TLS there).
    await writeHba([`host all ${role} 127.0.0.1/32 password`, `host all ${role} ::1/128 password`, ...rules]);
    const url = new URL(database.url);
    url.username = role;
    url.password = "";
    appUrl = url.toString();
    // The reload is asynchronous: wait until a wrong password is refused.
    await vi.waitFor(async () => {
      const outcome = await asAdmin(appUrl.replace(`${role}@`, `${role}:wrong@`), async () => "in").catch((error: { code?: string }) => error.code);
      expect(outcome).toBe("28P01");
    });
  });

  afterAll(async () => {
    if (originalHba !== undefined) {
      await writeHba(originalHba.split("\n").map((line) => line.replace(/\s+/g, " ").trim()).filter((line) => line !== "" && !line.startsWith("#")));
    }
    await database?.drop();
    await asAdmin(serverUrl, (admin) => admin.query(`DROP ROLE IF EXISTS ${role}`));
  });

  it("reuses the token while it is fresh and reconnects with a new one once it expired", async () => {
    let now = Date.parse("2026-12-01T06:00:00Z");
    const clock = { now: () => now };
    const entra = new StandInEntra(serverUrl, role, clock);
    await entra.rotate();
    const client = pgClient(appUrl, { poolSize: 2, password: entraPassword({ credential: entra, clock }) });
    try {
      // Two connections at once: one token request.
      const both = await Promise.all([
        client.query<{ who: string }>("SELECT current_user AS who, pg_sleep(0.05)"),
        client.query<{ who: string }>("SELECT current_user AS who, pg_sleep(0.05)"),
      ]);
      expect(both.map((rows) => rows[0]?.who)).toEqual([role, role]);
      expect(entra.requests).toBe(1);
      expect(entra.scopes).toEqual([POSTGRES_ENTRA_SCOPE]);

      // An hour on, the first token has expired and Entra issues another; the server drops the sessions (a failover,
      // an idle timeout): new connections need the new token.
      now += HOUR_MS;
      await entra.rotate();
      await asAdmin(serverUrl, (admin) => admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", [role]));
      await expect.poll(() => client.query<{ who: string }>("SELECT current_user AS who").then((rows) => rows[0]?.who, (error: { code?: string }) => error.code)).toBe(role);
      expect(entra.requests).toBe(2);

      // The expired token no longer signs in: without the refresh the pool could not have reconnected.
      await expect(asAdmin(appUrl.replace(`${role}@`, `${role}:${entra.tokens[0]}@`), async () => "in")).rejects.toMatchObject({ code: "28P01" });
      await expect(asAdmin(appUrl.replace(`${role}@`, `${role}:${entra.tokens[1]}@`), async () => "in")).resolves.toBe("in");
    } finally {
      await client.close();
    }
  });

  it("refreshes before expiry, so a connection never races its token's last minutes", async () => {
    let now = Date.parse("2026-12-01T06:00:00Z");
    const clock = { now: () => now };
    const entra = new StandInEntra(serverUrl, role, clock);
    await entra.rotate();
    const password = entraPassword({ credential: entra, clock, refreshMarginMs: 5 * 60_000 });
    const first = await password();
    now += HOUR_MS - 6 * 60_000;
    await entra.rotate();
    expect(await password()).toBe(first); // 6 minutes left: still the cached token, no request
    expect(entra.requests).toBe(1);
    now += 2 * 60_000; // 4 minutes left: inside the margin
    expect(await password()).toBe(entra.tokens[1]);
    expect(entra.requests).toBe(2);
  });

  it("runs the guard itself on an Entra-signed pool (migrations and queries)", async () => {
    const clock = { now: () => Date.now() };
    const entra = new StandInEntra(serverUrl, role, clock);
    await entra.rotate();
    const guard = await Guard.open({ databaseUrl: appUrl, databasePassword: entraPassword({ credential: entra, clock }), poolSize: 2 });
    try {
      expect(await guard.periodSpend("2026-12")).toMatchObject({ chargedCents: 0 });
      expect(entra.requests).toBe(1);
    } finally {
      await guard.close();
    }
  });

  it("says which identity to check when the credential returns no token", async () => {
    const password = entraPassword({ credential: { getToken: async () => null } });
    await expect(password()).rejects.toThrow(EntraTokenError);
    await expect(password()).rejects.toThrow(/is the app's identity \(AZURE_CLIENT_ID\) assigned/);
  });
});
