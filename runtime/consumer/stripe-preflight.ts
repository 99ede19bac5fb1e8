// At start, Stripe's origin must answer a TCP connect: a mistyped STRIPE_API_BASE, a sandbox that is not running or a
// firewall is a configuration error the operator sees at once (exit 2, naming the URL), not a first message that
// spends its retries and backoff (half a minute and more) before anything is logged. Only a connect, bounded: it sends
// no key and no request, so it cannot charge or leak anything. Harnesses that start a consumer on purpose against an
// origin that is not there (a liveness probe's test) switch it off: `checkStripeAtStart: false` or STRIPE_START_CHECK=off.
import { connect } from "node:net";
import { ConsumerStartError } from "./servicebus-preflight.js";
import { processEnvironment, runtimeEnvironment, type Environment } from "../core/environment.js";

/** How long the connect may take before the origin counts as unreachable. */
export const STRIPE_CONNECT_CHECK_MS = 5_000;

/** Whether the start check runs: the option, else env STRIPE_START_CHECK (`off` skips it), else on. */
export function stripeCheckWanted(option: boolean | undefined, env: Environment = processEnvironment()): boolean {
  return option ?? runtimeEnvironment(env).stripeStartCheck;
}

/**
 * Opens and closes one TCP connection to `origin` (default port 443 for https, 80 for http); throws a
 * ConsumerStartError naming the origin and `setting` (where it came from) when refused, unresolvable or slower than `timeoutMs`.
 */
export async function checkStripeReachable(origin: string, setting: string, timeoutMs = STRIPE_CONNECT_CHECK_MS): Promise<void> {
  const url = new URL(origin);
  const port = url.port === "" ? (url.protocol === "http:" ? 80 : 443) : Number(url.port);
  // URL keeps IPv6 literals in brackets; net.connect wants the bare address.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const failure = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    };
    const timer = setTimeout(() => done(`no connection within ${timeoutMs / 1000} s`), timeoutMs);
    socket.once("connect", () => done(undefined));
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
  if (failure === undefined) return;
  throw new ConsumerStartError(
    `cannot reach Stripe at ${url.origin} (${failure}): check ${setting} and the network (a proxy or firewall between the consumer and it); ` +
      "nothing was received from the queue (STRIPE_START_CHECK=off skips this check)",
  );
}
