// `npm run prove:python`: the seed's Python consumers, unchanged, against the sandbox beside their TypeScript ports,
// each pair under the same fault; shows each fails as its port fails. Then the seed's own fix (its guarded consumer on
// PostgreSQL through psycopg2) under the same faults, when TEST_DATABASE_URL names a PostgreSQL (the npm script runs
// it under scripts/with-postgres.mjs). Needs Debian's python3-azure, python3-uamqp, python3-stripe (and
// python3-psycopg2 for the guard) for /usr/bin/python3 (env CHARGEGUARD_PYTHON for another interpreter) and
// 127.0.0.1:5671 free (azure-servicebus 7.8 dials only 5671). Exit 0 when every pair failed alike and the guard held,
// 1 when not, 2 when it cannot run.
import { spawnSync } from "node:child_process";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/index.js";
import { seedScenarios } from "./seed-scenarios.js";
import { runSide, type SideResult } from "./seed-run.js";

const events = 3;

function imports(python: string, modules: string): boolean {
  return spawnSync(python, ["-c", `import ${modules}`], { encoding: "utf8" }).status === 0;
}

function describeSide(label: string, result: SideResult): string {
  const died = result.lastError ? ` (the last died: ${result.lastError})` : "";
  return (
    `        ${label}: ${result.charges} charges for ${result.events} events, ${result.duplicateCharges} duplicate(s), ` +
    `${result.deliveries} deliveries${result.side === "port" ? "" : `, ${result.restarts} replica restart(s)${died}`}`
  );
}

/** Each broken seed consumer beside its port; true when every pair showed duplicate charges on both sides. */
async function pairs(serviceBus: ServiceBusEmulator, python: string): Promise<boolean> {
  let alike = true;
  console.log(`seed consumer (Python, unchanged) vs its TypeScript port, ${events} events, 2 replicas each`);
  for (const scenario of seedScenarios) {
    const py = await runSide(serviceBus, scenario, "python", events, python);
    const port = await runSide(serviceBus, scenario, "port", events, python);
    const same = py.duplicateCharges > 0 && port.duplicateCharges > 0;
    alike &&= same;
    console.log(
      `${same ? "alike  " : "DIFFER "} ${scenario.name}: ${scenario.fault}\n` +
        `${describeSide(`seed/${scenario.snippet}`, py)}\n${describeSide(`examples/broken/${scenario.port}`, port)}`,
    );
  }
  console.log(alike ? "every seed consumer failed as its port fails: duplicate charges" : "a seed consumer and its port did not fail alike");
  return alike;
}

/** The seed's guarded consumer under each fault; true when the fault bit (a redelivery) and no event was charged twice. */
async function guard(serviceBus: ServiceBusEmulator, python: string, databaseUrl: string): Promise<boolean> {
  let held = true;
  console.log(`the seed's guarded consumer (Python, unchanged; billing_records on PostgreSQL), ${events} events, 2 replicas`);
  for (const scenario of seedScenarios) {
    const result = await runSide(serviceBus, scenario, "guard", events, python, databaseUrl);
    const ok = result.deliveries > result.events && result.charges === result.events;
    held &&= ok;
    console.log(`${ok ? "held   " : "FAILED "} ${scenario.name}\n${describeSide("seed/consumer_guarded.py", result)}`);
  }
  return held;
}

async function main(): Promise<number> {
  const python = process.env.CHARGEGUARD_PYTHON ?? "/usr/bin/python3";
  if (!imports(python, "azure.servicebus, stripe, certifi")) {
    console.error(`prove:python: ${python} cannot import azure.servicebus and stripe: apt-get install python3-azure python3-uamqp python3-stripe`);
    return 2;
  }
  const serviceBus = await startServiceBusEmulator({ queues: {}, tls: { port: 5671 } }).catch((error: unknown) => {
    console.error(`prove:python: cannot listen on 127.0.0.1:5671, which azure-servicebus 7.8 dials: ${(error as Error).message}`);
    return undefined;
  });
  if (!serviceBus) return 2;
  try {
    let ok = await pairs(serviceBus, python);
    const databaseUrl = process.env.TEST_DATABASE_URL;
    if (!databaseUrl) console.log("the seed's guarded consumer: not run (no TEST_DATABASE_URL: run under scripts/with-postgres.mjs)");
    else if (!imports(python, "psycopg2")) console.log(`the seed's guarded consumer: not run (${python} lacks psycopg2: apt-get install python3-psycopg2)`);
    else ok = (await guard(serviceBus, python, databaseUrl)) && ok;
    return ok ? 0 : 1;
  } finally {
    await serviceBus.stop();
  }
}

process.exitCode = await main();
