import Stripe from "stripe";

export interface RecordedExchange {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

type Inner = ReturnType<typeof Stripe.createNodeHttpClient>;
type Response = Awaited<ReturnType<Inner["makeRequest"]>>;

/** The SDK's own Node HTTP client, keeping each response's status and parsed body for the test to inspect. */
export function recordingHttpClient(exchanges: RecordedExchange[]): Inner {
  const inner = Stripe.createNodeHttpClient();
  return Object.assign(Object.create(inner) as Inner, {
    async makeRequest(...args: Parameters<Inner["makeRequest"]>): Promise<Response> {
      const [, , path, method] = args;
      const response = await inner.makeRequest(...args);
      const body = (await response.toJSON()) as unknown;
      exchanges.push({ method, path: path.split("?")[0] ?? path, status: response.getStatusCode(), body });
      // The SDK reads the body once more: hand it the parsed copy.
      return Object.assign(Object.create(response) as Response, { toJSON: () => Promise.resolve(body) });
    },
  });
}
