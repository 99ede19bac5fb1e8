// What each connection may do: the claims it earned by putting SAS tokens on $cbs (tokens are per connection, as on
// Azure), and the refusal of a link or a request its claims do not cover.
import type { Connection, Message, Receiver, Sender } from "rhea";
import { unauthorized, unauthorizedCondition, verifyPutToken, type AccessRight, type AuthorizationRule, type Claim } from "./authorization.js";

export class ConnectionClaims {
  readonly #claims = new WeakMap<Connection, Claim[]>();
  readonly #rules: ReadonlyMap<string, AuthorizationRule>;
  readonly #log: (line: string) => void;

  constructor(rules: ReadonlyMap<string, AuthorizationRule>, log: (line: string) => void) {
    this.#rules = rules;
    this.#log = log;
  }

  /**
   * CBS put-token: verifies the SAS token and remembers the claim for this connection. Returns the reply's
   * properties: 202 when it verifies, 401 when it does not.
   */
  putToken(connection: Connection, request: Message): Record<string, unknown> {
    const properties = (request.application_properties ?? {}) as Record<string, unknown>;
    const verdict = verifyPutToken(this.#rules, { type: properties.type, audience: properties.name, token: request.body }, Date.now());
    if (!verdict.ok) {
      this.#log(`servicebus emulator: refused a token: ${verdict.description}`);
      return { "status-code": 401, "status-description": verdict.description };
    }
    const now = Date.now();
    this.#claims.set(connection, [...this.#of(connection).filter((claim) => claim.expiresAt > now), verdict.claim]);
    return { "status-code": 202, "status-description": "Accepted" };
  }

  /** Why the connection may not use `right` on `address`, or undefined when it may. */
  refusal(connection: Connection, address: string, right: AccessRight | undefined): string | undefined {
    return unauthorized(this.#of(connection), address, right, Date.now());
  }

  /** Refuses (detaches) a link whose connection holds no claim with `right` on `address`, as Azure does. */
  authorize(link: Sender | Receiver, address: string, right: AccessRight | undefined): boolean {
    const refused = this.refusal(link.connection, address, right);
    if (refused === undefined) return true;
    this.#log(`servicebus emulator: refused a link to ${address}: ${refused}`);
    link.close({ condition: unauthorizedCondition, description: refused });
    return false;
  }

  #of(connection: Connection): Claim[] {
    return this.#claims.get(connection) ?? [];
  }
}
