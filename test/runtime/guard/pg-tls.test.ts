// With a password or Entra token given apart from DATABASE_URL (DATABASE_AUTH=entra), the connection is TLS unless
// the server is on loopback: a URL without sslmode must not send the token in clear.
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../../runtime/core/errors.js";
import { connectionParams } from "../../../runtime/guard/pg-client.js";

describe("connectionParams (a password or token given apart from the URL)", () => {
  it("turns TLS on without sslmode for a server that is not loopback", () => {
    expect(connectionParams("postgres://id-billing@psql-billing.postgres.database.azure.com:5432/billing")).toMatchObject({ ssl: true, host: "psql-billing.postgres.database.azure.com" });
    expect(connectionParams("postgres://id-billing@10.0.0.4/billing")).toMatchObject({ ssl: true });
  });

  it("keeps TLS for any sslmode but disable, and refuses disable to another host", () => {
    expect(connectionParams("postgres://id@db.example:5432/billing?sslmode=require")).toMatchObject({ ssl: true });
    expect(() => connectionParams("postgres://id@db.example:5432/billing?sslmode=disable")).toThrow(ConfigurationError);
    expect(() => connectionParams("postgres://id@db.example:5432/billing?sslmode=disable")).toThrow(/sslmode=disable.*TLS only/);
  });

  it("connects to loopback without TLS (a local server, as the tests run)", () => {
    expect(connectionParams("postgres://postgres@127.0.0.1:5432/billing")).not.toHaveProperty("ssl");
    expect(connectionParams("postgres://postgres@localhost/billing?sslmode=disable")).not.toHaveProperty("ssl");
  });
});
