// Loopback: the one place a secret may travel without TLS (nothing leaves the machine). Used by where Stripe and
// vault keys may go (stripe/key-destination.ts) and by the database's TLS rule with an Entra token (guard/pg-client.ts).

/** 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}
