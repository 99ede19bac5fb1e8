// The generated repository the benchmark lints: a realistic one (15% consumers, the rest services and utilities) or
// one made entirely of billing code. The typed corpus carries a tsconfig so its imports resolve to the real SDKs' types.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { billingService, classConsumer, consumer, service, utility } from "./file-templates.mjs";

/** The typed corpus's tsconfig: the generated code type-checks against the real SDKs' types. */
const TSCONFIG = JSON.stringify(
  {
    compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, noEmit: true, types: ["node"] },
    include: ["**/*.ts"],
  },
  null,
  2,
);

/**
 * Writes `files` generated files for `corpus` ("realistic" or "billing") into a fresh `directory`; with `typed`, a
 * tsconfig too. Draws come from `draws` (seeded-random.mjs). Returns how many of each kind it wrote.
 */
export function writeCorpus(directory, corpus, { files, typed, draws }) {
  rmSync(directory, { recursive: true, force: true });
  const counts = { consumers: 0, services: 0, utilities: 0 };
  for (const folder of ["consumers", "services", "utilities"]) mkdirSync(path.join(directory, folder), { recursive: true });
  if (typed) writeFileSync(path.join(directory, "tsconfig.json"), TSCONFIG);
  for (let index = 0; index < files; index += 1) {
    const roll = draws.random();
    if (corpus === "billing") {
      // All billing code: function consumers, class consumers with an injected service, Stripe billing services.
      if (roll < 0.4) writeFileSync(path.join(directory, "consumers", `consumer-${index}.ts`), consumer(index, draws));
      else if (roll < 0.7) writeFileSync(path.join(directory, "consumers", `class-consumer-${index}.ts`), classConsumer(index));
      else writeFileSync(path.join(directory, "services", `billing-service-${index}.ts`), billingService(index, draws));
      counts[roll < 0.7 ? "consumers" : "services"] += 1;
      continue;
    }
    if (roll < 0.15) {
      writeFileSync(path.join(directory, "consumers", `consumer-${index}.ts`), consumer(index, draws));
      counts.consumers += 1;
    } else if (roll < 0.55) {
      writeFileSync(path.join(directory, "services", `service-${index}.ts`), service(index, draws));
      counts.services += 1;
    } else {
      writeFileSync(path.join(directory, "utilities", `utility-${index}.ts`), utility(index, draws));
      counts.utilities += 1;
    }
  }
  return counts;
}
