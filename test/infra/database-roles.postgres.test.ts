// Least privilege in the guard database, on the real test PostgreSQL: a consumer's role set up by the statements
// infra generates (with CREATE ROLE standing in for Azure's pgaadauth principal) runs the guard's migrations and
// claims into its own schema, cannot create anything in public, and cannot read another consumer's schema.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerRoleStatements, consumerSchemaName, entraPrincipalStatement } from "../../infra/specs/index.js";
import { Guard } from "../../runtime/guard/guard.js";
import { createScratchDatabase, postgresServerUrl } from "../runtime/guard/databases.js";

async function asUser<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

describe("consumer database roles (statements)", () => {
  it("name the schema after the queue and map the identity by object id", () => {
    expect(consumerSchemaName("usage-billing")).toBe("usage_billing");
    expect(consumerSchemaName("9lives")).toBe("_9lives");
    expect(entraPrincipalStatement("id-usage-billing-consumer", "0000-1")).toBe(
      "SELECT * FROM pgaadauth_create_principal_with_oid('id-usage-billing-consumer', '0000-1', 'service', false, false);",
    );
  });
});

// Never skipped: without TEST_DATABASE_URL a server is started for this process, or the tests fail saying why.
describe("consumer database roles (PostgreSQL)", () => {
  let serverUrl: string;
  const suffix = randomUUID().slice(0, 8);
  const roles = [`id-usage-${suffix}`, `id-invoice-${suffix}`];
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  const urlAs = (role: string) => {
    const url = new URL(database.url);
    url.username = role;
    url.password = "stand-in-for-an-entra-token";
    return url.toString();
  };

  beforeAll(async () => {
    serverUrl = await postgresServerUrl();
    database = await createScratchDatabase(serverUrl);
    const databaseName = new URL(database.url).pathname.slice(1);
    await asUser(database.url, async (admin) => {
      for (const [index, role] of roles.entries()) {
        await admin.query(`CREATE ROLE "${role}" LOGIN PASSWORD 'stand-in-for-an-entra-token'`);
        for (const statement of consumerRoleStatements({ roleName: role, schema: consumerSchemaName(`queue-${index}-${suffix}`), databaseName })) {
          await admin.query(statement);
        }
      }
    });
  });
  afterAll(async () => {
    await database?.drop();
    await asUser(serverUrl, async (admin) => {
      for (const role of roles) await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    });
  });

  it("lets the consumer's role migrate and claim in its own schema only", async () => {
    const guard = await Guard.open({ databaseUrl: urlAs(roles[0] as string) });
    await guard.close();
    const placed = await asUser(database.url, (admin) =>
      admin.query<{ table_schema: string }>("SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_name = 'guard_records'"),
    );
    expect(placed.rows.map((row) => row.table_schema)).toEqual([consumerSchemaName(`queue-0-${suffix}`)]);

    await asUser(urlAs(roles[0] as string), async (client) => {
      await expect(client.query("CREATE TABLE public.stray (id int)")).rejects.toThrow(/permission denied for schema public/);
    });
    await asUser(urlAs(roles[1] as string), async (client) => {
      await expect(client.query(`SELECT * FROM ${consumerSchemaName(`queue-0-${suffix}`)}.guard_records`)).rejects.toThrow(/permission denied for schema/);
    });
  });
});
