// The container's probes: what Container Apps asks before routing to, and while running, a replica.
import { afterEach, describe, expect, it } from "vitest";
import { type HealthServer, startHealthServer } from "../src/health.js";

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const status = async (path: string) => (await fetch(`http://127.0.0.1:${server?.port}${path}`)).status;

describe("startHealthServer", () => {
  it("answers startup and readiness only once the consumer has started, and readiness no more once it stops", async () => {
    const state = { started: false, stopping: false };
    server = await startHealthServer(0, state, "127.0.0.1");
    expect([await status("/startup"), await status("/ready"), await status("/live")]).toEqual([503, 503, 200]);
    state.started = true;
    expect([await status("/startup"), await status("/ready")]).toEqual([200, 200]);
    state.stopping = true;
    expect([await status("/ready"), await status("/live")]).toEqual([503, 200]);
  });

  it("while the consumer waits at start for a database that does not answer: started and live, not ready", async () => {
    const state = { started: false, stopping: false, waitingForDatabase: true };
    server = await startHealthServer(0, state, "127.0.0.1");
    // Started as far as the platform goes (a startup-probe restart would meet the same outage), out of rotation.
    expect([await status("/startup"), await status("/ready"), await status("/live")]).toEqual([200, 503, 200]);
    state.waitingForDatabase = false;
    state.started = true;
    expect([await status("/startup"), await status("/ready"), await status("/live")]).toEqual([200, 200, 200]);
  });

  it("answers /live from the consumer's receive loop once it started: 503 with the reason when it stalls", async () => {
    let liveness: { live: boolean; reason?: string } = { live: true };
    server = await startHealthServer(0, { started: true, stopping: false, liveness: () => liveness }, "127.0.0.1");
    expect(await status("/live")).toBe(200);
    liveness = { live: false, reason: "the receive loop has not turned for 4 min" };
    const response = await fetch(`http://127.0.0.1:${server.port}/live`);
    expect([response.status, await response.text()]).toEqual([503, "stalled: the receive loop has not turned for 4 min\n"]);
  });

  it("answers 404 for any other path", async () => {
    server = await startHealthServer(0, { started: true, stopping: false }, "127.0.0.1");
    expect(await status("/")).toBe(404);
  });
});
