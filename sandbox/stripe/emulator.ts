import { setMaxListeners } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { SandboxClock } from "../clock.js";
import { AdjustableClock } from "../clock.js";
import { billingMeterRoutes } from "./billing-meters.js";
import { chargeRoutes } from "./charges.js";
import { customerRoutes } from "./customers.js";
import { disputeRoutes } from "./disputes.js";
import { answerDegraded } from "./degraded-answer.js";
import { StripeDegradation } from "./degradation.js";
import { StripeFailure, type StripeErrorBody } from "./stripe-failures.js";
import { expand, expansionPaths } from "./expand.js";
import { StripeFaults, type StripeFaultAction, type StripeFaultRequest } from "./faults.js";
import { canonicalForm, parseForm, type FormObject } from "./form.js";
import { IdempotencyKeys, idempotencyWindowMs, type SavedResponse } from "./idempotency.js";
import { StripeLedger } from "./ledger.js";
import { invoicePaymentRoutes } from "./invoice-payments.js";
import { invoiceRoutes } from "./invoices.js";
import { paymentIntentRoutes } from "./payment-intents.js";
import { refundRoutes } from "./refunds.js";
import type { StripeOutageSpec } from "./outage.js";
import type { StripeRateLimit } from "./rate-limit.js";
import type { Route } from "./routes.js";
import { StripeStore } from "./store.js";

export interface StripeEmulatorOptions<C extends SandboxClock = AdjustableClock> {
  /** 0 (default): any free port. */
  port?: number;
  /** Drives `created`, the 24-hour key window and search lag; default a fresh `AdjustableClock`. */
  clock?: C;
  /** PaymentIntents younger than this are not yet found by search (Stripe's search lags up to an hour); default 0. */
  searchLagMs?: number;
  /** Stripe's rate limiters (degradation.ts); absent: unlimited. */
  rateLimit?: StripeRateLimit;
  /** Start inside an outage window (degradation.ts). */
  outage?: StripeOutageSpec;
  /**
   * How long after a charge on a dispute test card (`pm_card_createDispute` ...) its dispute opens, on the emulator's
   * clock; default 0: with the first request after the charge's answer (Stripe: "shortly after").
   */
  disputeDelayMs?: number;
}

export interface StripeEmulator<C extends SandboxClock = AdjustableClock> {
  host: string;
  port: number;
  /** `http://127.0.0.1:<port>` */
  apiBase: string;
  /** Spread into the SDK's config: `new Stripe(key, { ...emulator.stripeConfig })`. */
  stripeConfig: { host: string; port: number; protocol: "http" };
  faults: StripeFaults;
  /** Sustained degradation: rate limit, outage windows, timed plans, and what they answered. */
  degradation: StripeDegradation;
  clock: C;
  ledger: StripeLedger;
  /** Closes the listener and every open connection (hung requests included); leaves no handles. */
  stop(): Promise<void>;
}

const host = "127.0.0.1";
const maxBodyBytes = 1024 * 1024;
const routes: Route[] = [
  ...customerRoutes, ...paymentIntentRoutes, ...chargeRoutes, ...refundRoutes, ...disputeRoutes, ...invoiceRoutes, ...invoicePaymentRoutes,
  ...billingMeterRoutes,
];

/**
 * An HTTP server the unmodified `stripe` SDK talks to: Stripe's JSON and error shapes, its idempotency
 * semantics (replay, 400 on other parameters, 409 while executing, 24-hour window) and injectable faults.
 */
export async function startStripeEmulator<C extends SandboxClock = AdjustableClock>(options: StripeEmulatorOptions<C> = {}): Promise<StripeEmulator<C>> {
  const clock = options.clock ?? (new AdjustableClock() as SandboxClock as C);
  const searchLagMs = options.searchLagMs ?? 0;
  if (!Number.isFinite(searchLagMs) || searchLagMs < 0) throw new RangeError(`searchLagMs must be a finite, non-negative number, got ${searchLagMs}`);
  const store = new StripeStore(clock);
  const disputeDelayMs = options.disputeDelayMs ?? 0;
  if (!Number.isFinite(disputeDelayMs) || disputeDelayMs < 0) throw new RangeError(`disputeDelayMs must be a finite, non-negative number, got ${disputeDelayMs}`);
  store.disputeDelayMs = disputeDelayMs;
  const keys = new IdempotencyKeys(clock, idempotencyWindowMs);
  const faults = new StripeFaults();
  const degradation = new StripeDegradation({ ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}), ...(options.outage ? { outage: options.outage } : {}) });
  const stopping = new AbortController();
  // Every request held by a latency fault listens on this one signal: hundreds at once is the normal case here.
  setMaxListeners(0, stopping.signal);
  const context = { store, keys, faults, degradation, searchLagMs, stopping: stopping.signal };

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(context, req, res).catch((error: unknown) => {
      // Only a bug in the emulator lands here: answer like Stripe's own 500 rather than crash the test run.
      if (!res.headersSent && !res.destroyed) send(res, 500, errorJson({ type: "api_error", message: `Sandbox error: ${String(error)}` }), {});
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    host,
    port,
    apiBase: `http://${host}:${port}`,
    stripeConfig: { host, port, protocol: "http" },
    faults,
    degradation,
    clock,
    ledger: new StripeLedger(store),
    stop: async () => {
      stopping.abort();
      degradation.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

interface HandlerContext {
  store: StripeStore;
  keys: IdempotencyKeys;
  faults: StripeFaults;
  degradation: StripeDegradation;
  searchLagMs: number;
  stopping: AbortSignal;
}

async function handle(context: HandlerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = context.store.ids.next("req");
  const method = req.method ?? "GET";
  const url = req.url ?? "/";
  const queryStart = url.indexOf("?");
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const headerKey = req.headers["idempotency-key"];
  const idempotencyKey = method === "POST" && typeof headerKey === "string" && headerKey !== "" ? headerKey : undefined;
  const headers: Record<string, string> = { "Request-Id": requestId };
  if (idempotencyKey !== undefined) headers["Idempotency-Key"] = idempotencyKey;
  const stripeVersion = req.headers["stripe-version"];
  if (typeof stripeVersion === "string") headers["Stripe-Version"] = stripeVersion;

  const body = await readBody(req);
  if (body === undefined) return send(res, 413, errorJson({ type: "invalid_request_error", message: "Request body too large." }), headers);

  const authError = authenticate(req.headers.authorization);
  if (authError) return send(res, 401, errorJson(authError), headers);

  let params: FormObject;
  try {
    params = parseForm(method === "GET" || method === "DELETE" ? (queryStart === -1 ? "" : url.slice(queryStart + 1)) : body);
  } catch (error) {
    if (error instanceof StripeFailure) return send(res, error.status, errorJson(error.error), headers);
    throw error;
  }
  const faultRequest: StripeFaultRequest = { method, path, params, idempotencyKey };
  // Rate limits and outages act before anything executes: nothing is saved under the key.
  if (answerDegraded(context.degradation.meet(method, path), res, headers)) return;

  const arrival = context.faults.take("arrival", faultRequest);
  if (arrival) return send(res, ...arrivalFault(arrival, idempotencyKey), headers);

  const matched = match(method, path);
  if (!matched) {
    const message = `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`;
    return send(res, 404, errorJson({ type: "invalid_request_error", message }), headers);
  }

  const request: KeyedRequest = { matched, params, faultRequest, requestId };
  const response = idempotencyKey === undefined ? (await execute(context, matched, params, faultRequest, requestId))?.response : await respondUnderKey(context, res, headers, idempotencyKey, request);
  if (!response) return;

  const committed = context.faults.take("committed", faultRequest);
  if (committed?.action === "commitThenDrop") {
    req.socket.destroy();
    return;
  }
  if (committed?.action === "commitThenHang") return; // the client's timeout, or stop(), ends the connection
  send(res, response.status, response.body, headers);
}

/** A request that matched a route, on its way to the endpoint. */
interface KeyedRequest {
  matched: { route: Route; pathParams: string[] };
  params: FormObject;
  faultRequest: StripeFaultRequest;
  requestId: string;
}

/**
 * A POST with an Idempotency-Key: the first request with the key runs and saves its response, a replay answers the
 * saved one, a concurrent or different request under the key is refused. `undefined` when the answer was sent here
 * (a refusal) or nothing is to be sent (the emulator stopped).
 */
async function respondUnderKey(
  context: HandlerContext,
  res: ServerResponse,
  headers: Record<string, string>,
  idempotencyKey: string,
  request: KeyedRequest,
): Promise<SavedResponse | undefined> {
  const { matched, params, faultRequest, requestId } = request;
  if (idempotencyKey.length > 255) {
    send(res, 400, errorJson({ type: "invalid_request_error", message: "Idempotency-Key must be at most 255 characters long." }), headers);
    return undefined;
  }
  const fingerprint = `${faultRequest.method} ${faultRequest.path} ${canonicalForm(params)}`;
  const claim = context.keys.claim(idempotencyKey, fingerprint);
  if (claim.kind === "executing") {
    send(res, 409, errorJson(keyInUse(idempotencyKey)), headers);
    return undefined;
  }
  if (claim.kind === "mismatch") {
    send(res, 400, errorJson(keyMismatch(idempotencyKey, fingerprint, claim.firstFingerprint)), headers);
    return undefined;
  }
  if (claim.kind === "replay") {
    if (!(await applyLatency(context, faultRequest))) return undefined;
    const response = claim.response;
    headers["Idempotent-Replayed"] = "true";
    headers["Original-Request"] = response.requestId;
    if (response.status === 500) headers["Stripe-Should-Retry"] = "false";
    return response;
  }
  let executed: Awaited<ReturnType<typeof execute>>;
  try {
    executed = await execute(context, matched, params, faultRequest, requestId);
  } finally {
    // Saved only once the endpoint ran to an outcome; otherwise (validation, stop, a sandbox bug) free the key.
    if (executed?.saved) context.keys.save(idempotencyKey, executed.response);
    else context.keys.release(idempotencyKey);
  }
  if (!executed) return undefined;
  if (executed.response.status === 500) headers["Stripe-Should-Retry"] = "false";
  return executed.response;
}

/** Runs the endpoint; `undefined` when the emulator stopped meanwhile. */
async function execute(
  context: HandlerContext,
  matched: { route: Route; pathParams: string[] },
  params: FormObject,
  faultRequest: StripeFaultRequest,
  requestId: string,
): Promise<{ response: SavedResponse; saved: boolean } | undefined> {
  if (!(await applyLatency(context, faultRequest))) return undefined;
  const claimed = context.faults.take("claimed", faultRequest);
  if (claimed?.action === "serverError") {
    return { response: { status: 500, body: errorJson(serverErrorBody), requestId }, saved: true };
  }
  try {
    const expansions = expansionPaths(params, matched.route.returns);
    context.store.runDue();
    const result = matched.route.handle({ store: context.store, params, pathParams: matched.pathParams, searchLagMs: context.searchLagMs });
    const body = JSON.stringify(expand(result, expansions, matched.route.returns, context.store));
    return { response: { status: 200, body, requestId }, saved: true };
  } catch (error) {
    if (!(error instanceof StripeFailure)) throw error;
    return { response: { status: error.status, body: errorJson(error.error), requestId }, saved: error.saved };
  }
}

/** Latency faults act after the key is claimed, so a concurrent request with the same key meets a 409. */
async function applyLatency(context: HandlerContext, faultRequest: StripeFaultRequest): Promise<boolean> {
  const fault = context.faults.take("latency", faultRequest);
  if (fault?.action === "latency") {
    try {
      await sleep(fault.ms, undefined, { signal: context.stopping });
    } catch {
      // stop() aborted the wait: the request dies with the server.
    }
  }
  return !context.stopping.aborted;
}

function match(method: string, path: string): { route: Route; pathParams: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const found = route.pattern.exec(path);
    if (found) return { route, pathParams: found.slice(1) };
  }
  return undefined;
}

/**
 * The key from either form Stripe accepts: `Bearer <key>`, or Basic with the key as the user and no password (what
 * `curl -u "$STRIPE_API_KEY:"` sends, the form Stripe's own docs show).
 */
function apiKeyOf(authorization: string): string {
  const bearer = /^Bearer (\S+)$/i.exec(authorization)?.[1];
  if (bearer !== undefined) return bearer;
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization)?.[1];
  if (basic === undefined) return "";
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? decoded : decoded.slice(0, colon);
}

function authenticate(authorization: string | undefined): StripeErrorBody | undefined {
  if (!authorization) {
    return {
      type: "invalid_request_error",
      message:
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY') or Basic auth with the key as the user (curl -u YOUR_SECRET_KEY:).",
    };
  }
  const key = apiKeyOf(authorization);
  if (key.startsWith("sk_test_") || key.startsWith("rk_test_")) return undefined;
  // Never echo a key: show its prefix and last four characters, as Stripe does.
  const masked = key.length > 12 ? `${key.slice(0, 8)}${"*".repeat(8)}${key.slice(-4)}` : "****";
  return {
    type: "invalid_request_error",
    code: "api_key_invalid",
    message: `Invalid API Key provided: ${masked}. The sandbox accepts only test keys (sk_test_... or rk_test_...).`,
  };
}

const serverErrorBody: StripeErrorBody = {
  type: "api_error",
  message: "An unknown error occurred while processing your request (injected by the sandbox).",
};

function arrivalFault(fault: StripeFaultAction, idempotencyKey: string | undefined): [number, string] {
  switch (fault.action) {
    case "rateLimit":
      return [
        429,
        errorJson({
          type: "invalid_request_error",
          code: "rate_limit",
          message: "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.",
        }),
      ];
    case "conflict":
      return [409, errorJson(keyInUse(idempotencyKey ?? ""))];
    case "revokedKey":
      return [401, errorJson({ type: "invalid_request_error", message: "Expired API Key provided: rk_test_***. This key was revoked or rolled." })];
    default:
      return [500, errorJson(serverErrorBody)];
  }
}

function keyInUse(key: string): StripeErrorBody {
  return {
    type: "invalid_request_error",
    code: "idempotency_key_in_use",
    message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
  };
}

function keyMismatch(key: string, fingerprint: string, first: string): StripeErrorBody {
  const endpoint = (value: string) => value.slice(0, value.indexOf(" {"));
  const message =
    endpoint(fingerprint) === endpoint(first)
      ? `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`
      : `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${endpoint(first)}' vs '${endpoint(fingerprint)}'). Try using a key other than '${key}' if you meant to execute a different request.`;
  return { type: "idempotency_error", message };
}

function errorJson(error: StripeErrorBody): string {
  return JSON.stringify({ error });
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

/** The body as text; `undefined` past the size limit. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    req.once("end", () => resolve(size > maxBodyBytes ? undefined : chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8")));
    req.once("error", reject);
  });
}
