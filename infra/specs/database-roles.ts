// Least privilege in the guard database: each consumer's identity signs in as its own role, which owns one schema
// (its tables are created there through the role's search_path) and nothing else; the server's administrator is a
// separate, human or pipeline, principal (`chargeguard:database.administrators`). Azure Resource Manager cannot
// create database roles, so the administrator runs these statements once, after phase one (infra/README.md,
// "Deploy"); `chargeguard plan` prints them per consumer. Pure: no Pulumi import.

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quoteLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The schema a consumer's tables live in: its queue's name as a lowercase identifier, e.g. usage_billing. */
export function consumerSchemaName(queueName: string): string {
  const base = queueName.toLowerCase().replace(/[^a-z0-9_]/g, "_").replace(/^([^a-z_])/, "_$1");
  return base.slice(0, 63);
}

export interface ConsumerDatabaseRole {
  /** The Entra principal's name the identity signs in as (the identity's name, DATABASE_URL's user). */
  roleName: string;
  schema: string;
  databaseName: string;
}

/**
 * Run in the `postgres` database as the Entra administrator: maps the managed identity (by its object id, which a
 * shell fills in from `az identity show`) to a login role with no administrative rights.
 */
export function entraPrincipalStatement(roleName: string, objectId: string): string {
  return `SELECT * FROM pgaadauth_create_principal_with_oid(${quoteLiteral(roleName)}, ${quoteLiteral(objectId)}, 'service', false, false);`;
}

/** Run in the billing database as the administrator: the role's own schema, and nothing anywhere else. */
export function consumerRoleStatements(role: ConsumerDatabaseRole): string[] {
  const roleId = quoteIdentifier(role.roleName);
  const schema = quoteIdentifier(role.schema);
  const database = quoteIdentifier(role.databaseName);
  return [
    // Nobody creates objects in public (PostgreSQL 15+'s default, stated for servers upgraded from older ones).
    `REVOKE CREATE ON SCHEMA public FROM PUBLIC;`,
    `GRANT CONNECT ON DATABASE ${database} TO ${roleId};`,
    `CREATE SCHEMA IF NOT EXISTS ${schema} AUTHORIZATION ${roleId};`,
    // The guard's unqualified CREATE TABLE and queries land in the role's own schema.
    `ALTER ROLE ${roleId} IN DATABASE ${database} SET search_path = ${schema};`,
  ];
}
