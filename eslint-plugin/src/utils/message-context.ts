import type { Analysis } from "./analysis.js";

/** Service Bus in the file: the SDK's package, or its receiving and settlement methods. */
const SERVICE_BUS = /@azure\/service-bus|\b(completeMessage|abandonMessage|deadLetterMessage|deferMessage|receiveMessages|processMessage|renewMessageLock)\b/;

const cache = new WeakMap<object, boolean>();

/**
 * Whether the file handles Service Bus messages, so a repeat is "a redelivered message"; elsewhere (an HTTP handler,
 * a job) the same missing or unstable key fails on a retry of the request instead, and messages say so.
 */
export function handlesMessages(analysis: Analysis): boolean {
  const cached = cache.get(analysis.sourceCode);
  if (cached !== undefined) return cached;
  const result = SERVICE_BUS.test(analysis.sourceCode.text);
  cache.set(analysis.sourceCode, result);
  return result;
}

/** The repeat that charges again, worded for the file. */
export function repeatWording(analysis: Analysis): string {
  return handlesMessages(analysis) ? "a redelivered message" : "a retry of the same request";
}
