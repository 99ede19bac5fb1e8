import type { TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { fileIndex, within } from "./file-index.js";
import { idempotencyKeyOf, meterIdentifierOf } from "./idempotency-key.js";
import type { ImportedFunction } from "./imported-function.js";
import { stripeCall, type StripeCall } from "./stripe-call.js";
import type { FunctionNode } from "./walk.js";

/** A Stripe call inside a project function that sends no key (or no meter event identifier) on some or every path. */
export interface UnkeyedCall {
  call: TSESTree.CallExpression;
  info: StripeCall;
  missing: "key" | "identifier";
  partial: boolean;
}

/**
 * The money-moving Stripe calls a project function makes without a key or identifier: the summary a caller in
 * another file is checked with (a call through the wrapper is a Stripe call, reported where it is called). Only the
 * function's own body: a wrapper of a wrapper is followed once, at its own call sites.
 */
export function unkeyedCallsOf(imported: ImportedFunction): UnkeyedCall[] {
  const { analysis } = imported.module;
  return analysis.memo("unkeyed-calls", imported.fn, () => computeUnkeyed(analysis, imported.fn), []);
}

function computeUnkeyed(analysis: Analysis, fn: FunctionNode): UnkeyedCall[] {
  const found: UnkeyedCall[] = [];
  for (const call of within(fileIndex(analysis.sourceCode).calls, fn.body)) {
    if (call.type !== "CallExpression") continue;
    const info = stripeCall(analysis, call);
    if (!info?.moneyMoving) continue;
    const identifier = meterIdentifierOf(analysis, call, info);
    const lookup = identifier ?? idempotencyKeyOf(analysis, call, info);
    if (lookup.kind === "missing" || lookup.kind === "partial") {
      found.push({ call, info, missing: identifier ? "identifier" : "key", partial: lookup.kind === "partial" });
    }
  }
  return found;
}
