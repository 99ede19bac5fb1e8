import type { Collection, CreatedRange, ListQuery } from "./collection.js";
import { invalidRequest } from "./stripe-failures.js";
import type { FormObject } from "./form.js";
import type { StripeList } from "./objects.js";
import { optionalInteger, optionalString, rejectUnknown } from "./params.js";

export const listParamNames = ["limit", "starting_after", "ending_before", "created", "expand"] as const;

/** `limit` (1-100, default 10), `starting_after` / `ending_before` cursors, `created` exact or `created[gte]` etc. */
export function listQuery(params: FormObject): ListQuery {
  const limit = optionalInteger(params, "limit", { min: 1, max: 100 }) ?? 10;
  const startingAfter = optionalString(params, "starting_after");
  const endingBefore = optionalString(params, "ending_before");
  if (startingAfter !== undefined && endingBefore !== undefined) {
    throw invalidRequest("You may only specify one of these parameters: starting_after, ending_before.", { param: "starting_after" });
  }
  const created = createdRange(params);
  return {
    limit,
    ...(startingAfter !== undefined ? { startingAfter } : {}),
    ...(endingBefore !== undefined ? { endingBefore } : {}),
    ...(created ? { created } : {}),
  };
}

/**
 * A list of objects that belong to a charge (refunds, disputes), newest first: by `charge` (through the index
 * `chargeKey` names), by `payment_intent` (those of its charges) or all, with `created` and pagination.
 */
export function chargeScopedList<T extends { id: string; payment_intent: string | null }>(
  collection: Collection<T>,
  params: FormObject,
  chargeKey: (charge: string) => string,
  url: string,
): StripeList<T> {
  rejectUnknown(params, chargeScopedListParams);
  const chargeId = optionalString(params, "charge");
  const paymentIntentId = optionalString(params, "payment_intent");
  const query = listQuery(params);
  const page =
    chargeId !== undefined
      ? collection.list(query, { index: chargeKey(chargeId) })
      : collection.list(query, paymentIntentId !== undefined ? { where: (object: T) => object.payment_intent === paymentIntentId } : {});
  return { object: "list", data: page.data, has_more: page.hasMore, url };
}

const chargeScopedListParams: ReadonlySet<string> = new Set([...listParamNames, "charge", "payment_intent"]);

function createdRange(params: FormObject): CreatedRange | undefined {
  const created = params["created"];
  if (created === undefined || created === "") return undefined;
  if (typeof created === "string") {
    const exact = optionalInteger(params, "created");
    return exact === undefined ? undefined : { gte: exact, lte: exact };
  }
  if (Array.isArray(created)) throw invalidRequest("Invalid created: use created=<unix seconds> or created[gte]=...", { param: "created" });
  const range: CreatedRange = {};
  for (const bound of Object.keys(created)) {
    if (bound !== "gt" && bound !== "gte" && bound !== "lt" && bound !== "lte") {
      throw invalidRequest(`Received unknown parameter: created[${bound}]`, { code: "parameter_unknown", param: `created[${bound}]` });
    }
    const value = optionalInteger(created, bound);
    if (value !== undefined) range[bound] = value;
  }
  return range;
}
