// The committed generated consumer (examples/generated-consumer, built by `npm run build`) prints the settings it
// would run with, and they are the numbers `chargeguard plan` deploys its queue with: one source for the tuning. A
// setting the runtime refuses (ConfigurationError) stops it at start.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseIsoDuration } from "../../tuning/index.js";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist/cli/index.js");
const main = path.join(root, "dist/examples/generated-consumer/src/main.js");

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A listener where the consumer's Service Bus would be: it counts every connection attempt. */
let listener: Server;
let connections = 0;
beforeAll(async () => {
  for (const file of [cli, main]) if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm test does)`);
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
});

describe("examples/generated-consumer's main, built (what npm start runs)", () => {
  it("prints the queue's entry of `chargeguard plan --stack dev --json`, redacts secrets, exits 0 and connects nothing", async () => {
    const port = (listener.address() as { port: number }).port;
    const env = {
      PATH: process.env.PATH,
      SERVICEBUS_CONNECTION_STRING: `Endpoint=sb://127.0.0.1:${port};SharedAccessKeyName=consumer;SharedAccessKey=c2VjcmV0LWtleQ==;UseDevelopmentEmulator=true`,
      STRIPE_API_KEY: ["rk", "test", "51SECRETsecretSECRET"].join("_"),
      DATABASE_URL: `postgres://billing:pa55word@127.0.0.1:${port}/billing`,
    };
    const [printed, planned] = await Promise.all([run(main, ["--print-settings"], env), run(cli, ["plan", "--stack", "dev", "--json"], { PATH: process.env.PATH })]);
    expect(printed.stderr).toBe("");
    expect(printed.code).toBe(0);
    expect(planned.code).toBe(0);

    const settings = JSON.parse(printed.stdout) as { queue: string; tuning: Record<string, number>; problems: string[] };
    const plan = JSON.parse(planned.stdout) as { queues: { name: string; lockDuration: string; consumer: Record<string, number> }[] };
    const queue = plan.queues.find((entry) => entry.name === settings.queue);
    expect(settings.queue).toBe("usage-billing");
    expect(queue).toBeDefined();
    expect(settings.tuning).toEqual({
      lockDurationMs: parseIsoDuration(queue!.lockDuration),
      maxAutoLockRenewalDurationInMs: queue!.consumer.maxAutoLockRenewalDurationInMs,
      stripeTimeoutMs: queue!.consumer.stripeTimeoutMs,
      stripeMaxNetworkRetries: queue!.consumer.stripeMaxNetworkRetries,
    });
    expect(settings.problems).toEqual([]);
    for (const secret of ["c2VjcmV0LWtleQ==", "51SECRETsecretSECRET", "pa55word"]) expect(printed.stdout).not.toContain(secret);
    expect(connections).toBe(0);
  });

  it("a setting the runtime would refuse at start stops the consumer with exit 2, named by the run contract's schema, before connecting", async () => {
    const port = (listener.address() as { port: number }).port;
    const { code, stdout, stderr } = await run(main, [], {
      PATH: process.env.PATH,
      SERVICEBUS_CONNECTION_STRING: `Endpoint=sb://127.0.0.1:${port};SharedAccessKeyName=consumer;SharedAccessKey=c2VjcmV0LWtleQ==;UseDevelopmentEmulator=true`,
      // A live secret key: the runtime's key provider refuses it, and the run contract names it first (so
      // --print-settings lists it too).
      STRIPE_API_KEY: ["sk", "live", "51SECRETsecretSECRET"].join("_"),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^configuration:\n {2}- STRIPE_API_KEY is a live secret key/);
    expect(stdout).toBe("");
    expect(`${stdout}${stderr}`).not.toContain("51SECRETsecretSECRET");
    expect(connections).toBe(0);
  });
});
