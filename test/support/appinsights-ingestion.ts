// A stand-in for Application Insights' ingestion endpoint on 127.0.0.1: the track API the Azure Monitor exporter
// posts JSON envelopes to. It speaks https with a throwaway self-signed certificate (openssl), because the exporter
// rewrites an http IngestionEndpoint to https and sends Entra tokens over TLS only; its clients must therefore accept
// an unverified certificate (NODE_TLS_REJECT_UNAUTHORIZED=0: only this loopback server is ever contacted).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** One envelope as the exporter posts it (each request carries a JSON array of them). */
export interface Envelope {
  name: string;
  tags: Record<string, string>;
  data: { baseType: string; baseData: { name?: string; metrics?: { name: string; value: number }[]; properties?: Record<string, string> } };
}

export interface Ingestion {
  /** APPLICATIONINSIGHTS_CONNECTION_STRING naming this endpoint. */
  connectionString: string;
  /** Every post received: its Authorization header and its envelopes. */
  posts: { authorization: string | undefined; items: Envelope[] }[];
  items(): Envelope[];
  /** The metric envelopes whose (single) metric has this name. */
  metricsNamed(name: string): Envelope[];
  stop(): Promise<void>;
}

export async function startIngestion(): Promise<Ingestion> {
  const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-ingestion-"));
  let server: Server;
  try {
    const key = path.join(scratch, "key.pem");
    const cert = path.join(scratch, "cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"], { stdio: "ignore" });
    server = createServer({ key: readFileSync(key), cert: readFileSync(cert) });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const posts: Ingestion["posts"] = [];
  server.on("request", (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const items = request.url === "/v2.1/track" ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Envelope[]) : [];
      posts.push({ authorization: request.headers.authorization, items });
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ itemsReceived: items.length, itemsAccepted: items.length, errors: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const items = () => posts.flatMap((post) => post.items);
  return {
    connectionString: `InstrumentationKey=00000000-0000-4000-8000-000000000001;IngestionEndpoint=https://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    posts,
    items,
    metricsNamed: (name) => items().filter((item) => item.data.baseType === "MetricData" && item.data.baseData.metrics?.[0]?.name === name),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
