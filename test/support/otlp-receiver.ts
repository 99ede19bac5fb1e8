// A local OTLP/HTTP receiver on 127.0.0.1 (an OpenTelemetry Collector's /v1/traces and /v1/metrics), for the tests of
// the generated consumer's `--telemetry otlp` export: it keeps every request as received and answers 200, and reads
// OTLP/JSON metrics back (a sum's data points by name and attribute; resource attributes).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpPost {
  path: string;
  contentType: string;
  body: Buffer;
}

interface JsonAttribute {
  key: string;
  value: { stringValue?: string };
}
interface JsonPoint {
  asInt?: string | number;
  asDouble?: number;
  attributes?: JsonAttribute[];
}
export interface OtlpJsonMetrics {
  resourceMetrics: { resource: { attributes: JsonAttribute[] }; scopeMetrics: { metrics: { name: string; sum?: { dataPoints: JsonPoint[] } }[] }[] }[];
}

export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  posts: OtlpPost[];
  /** The OTLP/JSON metric exports received, parsed. */
  jsonMetrics(): OtlpJsonMetrics[];
  stop(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const posts: OtlpPost[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      posts.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      const json = request.headers["content-type"]?.includes("json") === true;
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" }).end(json ? "{}" : "");
    });
  });
  server.on("error", (error) => console.error(`OTLP receiver: ${error.message}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    jsonMetrics: () =>
      posts.filter((post) => post.path === "/v1/metrics" && post.contentType.includes("json")).map((post) => JSON.parse(post.body.toString("utf8")) as OtlpJsonMetrics),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A sum's value over the data points of one export whose attribute `key` is `value` (a cumulative sum: one export). */
export function sumOf(exported: OtlpJsonMetrics, metric: string, key: string, value: string): number {
  const points = exported.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics.filter((m) => m.name === metric).flatMap((m) => m.sum?.dataPoints ?? [])));
  return points
    .filter((point) => point.attributes?.some((attribute) => attribute.key === key && attribute.value.stringValue === value))
    .reduce((sum, point) => sum + Number(point.asInt ?? point.asDouble ?? 0), 0);
}

/** The first resource's attribute `key` in one export. */
export function resourceAttribute(exported: OtlpJsonMetrics | undefined, key: string): string | undefined {
  return exported?.resourceMetrics[0]?.resource.attributes.find((attribute) => attribute.key === key)?.value.stringValue;
}
