// How the Stripe emulator answers a request its degradation (degradation.ts) stops: 429 `rate_limit` with
// `Stripe-Rate-Limited-Reason` (Stripe's documented header), an outage's 500/503 `api_error`, or no answer at all.
import type { ServerResponse } from "node:http";
import type { DegradedAnswer } from "./degradation.js";

/** Answers (or holds) a stopped request and says true; for a request let through, arranges its release and says false. */
export function answerDegraded(answer: DegradedAnswer, res: ServerResponse, headers: Record<string, string>): boolean {
  switch (answer.kind) {
    case "pass":
      res.once("close", answer.release);
      return false;
    case "throttled":
      reply(res, 429, { ...headers, "Stripe-Rate-Limited-Reason": answer.reason }, {
        type: "invalid_request_error",
        code: "rate_limit",
        message: "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.",
      });
      return true;
    case "outage":
      // No answer: the request is held until the client gives up or the emulator stops.
      if (answer.answer === "no-answer") return true;
      reply(res, answer.answer, headers, { type: "api_error", message: "Stripe is unavailable (an outage injected by the sandbox)." });
      return true;
  }
}

function reply(res: ServerResponse, status: number, headers: Record<string, string>, error: Record<string, string>): void {
  if (res.destroyed) return;
  const body = JSON.stringify({ error });
  res.writeHead(status, { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}
