// The usage event a billing consumer accepts, validated before anything else happens: an event that fails here is
// dead-lettered with a reason naming the field, and never reaches the guard or Stripe.
import { z } from "zod";
import { errorMessage } from "../core/describe-error.js";
import { amountProblem, currencyProblem } from "../core/currency.js";
import type { UsageEvent } from "./usage-event.js";

/** A billing event is a handful of short fields; anything larger is not one of ours. */
export const maxEventBodyBytes = 4096;

const identifier = () => z.string().min(1, "must not be empty").max(200, "must be at most 200 characters");

export const usageEventSchema = z.strictObject({
  customerId: identifier(),
  stripeCustomerId: identifier().regex(/^cus_[A-Za-z0-9_]+$/, "must be a Stripe customer id (cus_...)"),
  paymentMethodId: identifier().regex(/^pm_[A-Za-z0-9_]+$/, "must be a Stripe payment method id (pm_...)"),
  billingPeriod: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM"),
  amountCents: z
    .number()
    .int("must be an integer number of cents")
    .positive("must be greater than zero")
    .max(Number.MAX_SAFE_INTEGER, "must be a safe integer"),
  // The shape only (no allow-list): Stripe decides which currencies an account may charge in.
  currency: z.string().refine((currency) => currencyProblem(currency) === undefined, "must be a three-letter ISO 4217 code in lower case"),
})
  .superRefine((event, context) => {
    // amountCents is in the currency's smallest unit; some currencies restrict its last digits (currency.ts).
    const problem = amountProblem(event.amountCents, event.currency);
    if (problem !== undefined) context.addIssue({ code: "custom", path: ["amountCents"], message: problem });
  }) satisfies z.ZodType<UsageEvent>;

export type UsageEventParseResult = { ok: true; event: UsageEvent } | { ok: false; reason: string };

/**
 * Validates a Service Bus message body: a JSON object (what the SDK hands over for a JSON body), or the same as a
 * string or bytes. Never throws.
 */
export function parseUsageEvent(body: unknown): UsageEventParseResult {
  const decoded = decodeEventBody(body);
  if (!decoded.ok) return decoded;
  const result = usageEventSchema.safeParse(decoded.value);
  if (result.success) return { ok: true, event: result.data };
  return { ok: false, reason: result.error.issues.map(describeIssue).join("; ") };
}

/** The body as a JSON value: a JSON object, or the same as a string or bytes, within the size limit. Never throws. */
export function decodeEventBody(body: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (body instanceof Uint8Array) {
    if (body.byteLength > maxEventBodyBytes) return tooLarge(body.byteLength);
    return parseJson(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
  }
  if (typeof body === "string") {
    const bytes = Buffer.byteLength(body, "utf8");
    if (bytes > maxEventBodyBytes) return tooLarge(bytes);
    return parseJson(body);
  }
  if (body === undefined || body === null) return { ok: false, reason: "body: missing (expected a JSON object)" };
  let serialized: string | undefined;
  try {
    serialized = JSON.stringify(body);
  } catch (error) {
    return { ok: false, reason: `body: not serializable as JSON (${errorMessage(error)})` };
  }
  const bytes = Buffer.byteLength(serialized ?? "", "utf8");
  if (bytes > maxEventBodyBytes) return tooLarge(bytes);
  return { ok: true, value: body };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: `body: not valid JSON (${errorMessage(error)})` };
  }
}

function tooLarge(bytes: number): { ok: false; reason: string } {
  return { ok: false, reason: `body: ${bytes} bytes exceeds the ${maxEventBodyBytes}-byte limit for a usage event` };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown field(s) ${issue.keys.map((key) => `"${key}"`).join(", ")}`;
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
  return `${field}: ${issue.message}`;
}
