// Signing in to Azure Database for PostgreSQL with Microsoft Entra ID: the password is an access token for the
// `ossrdbms-aad` scope (about an hour long), fetched through the app's identity (DefaultAzureCredential with
// AZURE_CLIENT_ID picks the user-assigned identity). `pg` calls a password *function* for every new connection;
// this one caches the token and fetches a fresh one before it expires, so a pool that reconnects after the first
// token's hour (a failover, an idle connection closed, a scale-out) signs in again instead of failing.
// Run contract: DATABASE_URL without a password + DATABASE_AUTH=entra.
import type { TokenCredential } from "@azure/identity";
import { systemClock, type Clock } from "../core/clock.js";
import { EntraTokenError } from "../core/errors.js";
import { loadIdentity } from "../sdk/load-identity.js";

/** The token audience Azure Database for PostgreSQL accepts. */
export const POSTGRES_ENTRA_SCOPE = "https://ossrdbms-aad.database.windows.net/.default";
/** Fetch a new token this long before the cached one expires: a connection handshake must not race its expiry. */
export const DEFAULT_TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;

export interface EntraPasswordOptions {
  /** Default `new DefaultAzureCredential()` (reads AZURE_CLIENT_ID for a user-assigned identity). */
  credential?: TokenCredential;
  refreshMarginMs?: number;
  clock?: Clock;
  scope?: string;
}

/** A `pg` password callback: the cached Entra token while it has more than the margin left, else a fresh one. */
export function entraPassword(options: EntraPasswordOptions = {}): () => Promise<string> {
  // The default credential is made on the first token fetch: @azure/identity loads then (runtime/sdk/), not when the
  // runtime is imported or the guard's options are built.
  let credential: TokenCredential | undefined = options.credential;
  const clock = options.clock ?? systemClock;
  const margin = options.refreshMarginMs ?? DEFAULT_TOKEN_REFRESH_MARGIN_MS;
  const scope = options.scope ?? POSTGRES_ENTRA_SCOPE;
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;

  const fetchToken = async (): Promise<string> => {
    credential ??= new (await loadIdentity()).DefaultAzureCredential();
    const token = await credential.getToken(scope);
    if (!token) throw new EntraTokenError(`the credential returned no token for ${scope}: is the app's identity (AZURE_CLIENT_ID) assigned?`);
    // The SDK may say when to refresh; never later than the margin before expiry.
    const refreshAt = Math.min(token.refreshAfterTimestamp ?? Infinity, token.expiresOnTimestamp - margin);
    cached = { token: token.token, refreshAt };
    return token.token;
  };

  return () => {
    if (cached && clock.now() < cached.refreshAt) return Promise.resolve(cached.token);
    // Connections opened together share one token request.
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
