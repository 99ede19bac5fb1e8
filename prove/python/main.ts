// `npm run prove:python`: the seed's Python consumers, unchanged, against the sandbox beside their TypeScript ports,
// each pair under the same fault; shows each fails as its port fails. Needs Debian's python3-azure, python3-uamqp and
// python3-stripe for /usr/bin/python3 (env CHARGEGUARD_PYTHON for another interpreter) and 127.0.0.1:5671 free
// (azure-servicebus 7.8 dials only 5671). Exit 0 when every pair failed alike, 1 when one did not, 2 when it cannot run.
import { spawnSync } from "node:child_process";
import { startServiceBusEmulator } from "../../sandbox/index.js";
import { seedScenarios } from "./seed-scenarios.js";
import { runSide, type SideResult } from "./seed-run.js";

const events = 3;

async function main(): Promise<number> {
  const python = process.env.CHARGEGUARD_PYTHON ?? "/usr/bin/python3";
  const probe = spawnSync(python, ["-c", "import azure.servicebus, stripe, certifi"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.error(`prove:python: ${python} cannot import azure.servicebus and stripe: apt-get install python3-azure python3-uamqp python3-stripe`);
    return 2;
  }
  const serviceBus = await startServiceBusEmulator({ queues: {}, tls: { port: 5671 } }).catch((error: unknown) => {
    console.error(`prove:python: cannot listen on 127.0.0.1:5671, which azure-servicebus 7.8 dials: ${(error as Error).message}`);
    return undefined;
  });
  if (!serviceBus) return 2;
  let alike = true;
  try {
    console.log(`seed consumer (Python, unchanged) vs its TypeScript port, ${events} events, 2 replicas each`);
    for (const scenario of seedScenarios) {
      const results: SideResult[] = [];
      for (const side of ["python", "port"] as const) results.push(await runSide(serviceBus, scenario, side, events, python));
      const [py, port] = results as [SideResult, SideResult];
      const same = py.duplicateCharges > 0 && port.duplicateCharges > 0;
      alike &&= same;
      console.log(
        `${same ? "alike  " : "DIFFER "} ${scenario.name}: ${scenario.fault}\n` +
          `        seed/${scenario.snippet}: ${py.charges} charges for ${py.events} events, ${py.duplicateCharges} duplicate(s), ${py.restarts} replica restart(s)${py.lastError ? ` (the last died: ${py.lastError})` : ""}\n` +
          `        examples/broken/${scenario.port}: ${port.charges} charges for ${port.events} events, ${port.duplicateCharges} duplicate(s)`,
      );
    }
  } finally {
    await serviceBus.stop();
  }
  console.log(alike ? "every seed consumer failed as its port fails: duplicate charges" : "a seed consumer and its port did not fail alike");
  return alike ? 0 : 1;
}

process.exitCode = await main();
