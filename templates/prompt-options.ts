// The questions `chargeguard new consumer` asks in a terminal when no options were given. Each answer is checked
// with the same rules as the flags and asked again until it passes.
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { ChargeguardError } from "../errors/index.js";
import { currencyProblem, packageNameProblem, queueNameProblem } from "./names.js";
import { databaseChoices } from "./database-packages.js";
import { telemetryChoices } from "./telemetry-choice.js";
import { flowChoices, type ScaffoldOptions, vaultChoices } from "./scaffold.js";
import { type BillingIdentityChoice, flowBillingIdentities } from "./billing-identity.js";

export interface PromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** The vendoring question: the chargeguard copy that would be packed, and the default answer (yes when unpublished). */
export interface VendorQuestion {
  from: string;
  byDefault: boolean;
}

/** Ctrl-C at one of the prompt's questions: nothing was written. The CLI says so in one line and exits 130. */
export class PromptInterrupted extends ChargeguardError {
  override readonly name = "PromptInterrupted";
}

/** The options, with `vendor` set to `vendoring.from` when the user chose to vendor (asked only with `vendoring`). */
export async function promptScaffoldOptions(
  directory: string,
  streams: PromptStreams = { input: process.stdin, output: process.stdout },
  vendoring?: VendorQuestion,
): Promise<ScaffoldOptions> {
  const readline = createInterface({ input: streams.input, output: streams.output });
  // Ctrl-C at a question ends the prompt, nothing written; the CLI exits 130 with one line. readline's own default
  // (no listener) only pauses the input, and the process then ended with 1 and no word.
  const interrupted = new AbortController();
  readline.on("SIGINT", () => interrupted.abort());
  const question = (text: string) =>
    readline.question(text, { signal: interrupted.signal }).catch((error: unknown) => {
      if (!interrupted.signal.aborted) throw error;
      streams.output.write("\n");
      throw new PromptInterrupted("interrupted at the prompt (Ctrl-C): nothing was written");
    });
  const ask = async (text: string, fallback: string, problem: (answer: string) => string | undefined) => {
    for (;;) {
      const answer = (await question(`${text} (${fallback}): `)).trim() || fallback;
      const found = problem(answer);
      if (found === undefined) return answer;
      streams.output.write(`  ${found}\n`);
    }
  };
  const oneOf = (choices: readonly string[]) => (answer: string) =>
    choices.includes(answer) ? undefined : `choose one of ${choices.join(", ")}`;
  try {
    const name = await ask("Project name", path.basename(path.resolve(directory)), packageNameProblem);
    const queue = await ask("Service Bus queue", "usage-billing", queueNameProblem);
    const flow = await ask(`Stripe billing flow (${flowChoices.join("|")})`, "payment-intent", oneOf(flowChoices));
    // Asked only where the flow's template offers a choice (flowBillingIdentities); its default is the first.
    const identities = flowBillingIdentities[flow as NonNullable<ScaffoldOptions["flow"]>];
    const billingIdentity =
      identities.length > 1
        ? await ask(
            `What identifies one billing: usage-event (each event's usageId is one charge) or customer-period (one charge per customer per month) (${identities.join("|")})`,
            identities[0] as string,
            oneOf(identities),
          )
        : (identities[0] as string);
    const currency = await ask("Currency", "usd", currencyProblem);
    const database = await ask(`Database: embedded PGlite, or PostgreSQL only (${databaseChoices.join("|")})`, "pglite", oneOf(databaseChoices));
    // Vault keys allow PaymentIntents only (scaffold.ts refuses keybrake with another flow): not asked for the others.
    const vault = flow === "payment-intent" ? await ask(`Stripe key source (${vaultChoices.join("|")})`, "env", oneOf(vaultChoices)) : "env";
    const telemetry = await ask(`Telemetry: Azure Monitor, OTLP (a Collector, Grafana, Datadog) or none (${telemetryChoices.join("|")})`, "azure-monitor", oneOf(telemetryChoices));
    const vendor = vendoring
      ? await ask(
          `Vendor chargeguard into vendor/? yes: packs ${vendoring.from} (${vendoring.byDefault ? "this copy is not on the npm registry yet" : "not needed: this version is on the registry"}); no: from the npm registry (yes|no)`,
          vendoring.byDefault ? "yes" : "no",
          oneOf(["yes", "no"]),
        )
      : "no";
    return {
      directory,
      name,
      queue,
      currency,
      flow: flow as NonNullable<ScaffoldOptions["flow"]>,
      billingIdentity: billingIdentity as BillingIdentityChoice,
      database: database as ScaffoldOptions["database"],
      vault: vault as ScaffoldOptions["vault"],
      telemetry: telemetry as NonNullable<ScaffoldOptions["telemetry"]>,
      ...(vendor === "yes" && vendoring ? { vendor: vendoring.from } : {}),
    };
  } finally {
    readline.close();
  }
}
