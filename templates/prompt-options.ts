// The questions `chargeguard new consumer` asks in a terminal when no options were given. Each answer is checked
// with the same rules as the flags and asked again until it passes.
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { currencyProblem, packageNameProblem, queueNameProblem } from "./names.js";
import { databaseChoices, type ScaffoldOptions, vaultChoices } from "./scaffold.js";

export interface PromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

export async function promptScaffoldOptions(
  directory: string,
  streams: PromptStreams = { input: process.stdin, output: process.stdout },
): Promise<ScaffoldOptions> {
  const readline = createInterface({ input: streams.input, output: streams.output });
  const ask = async (question: string, fallback: string, problem: (answer: string) => string | undefined) => {
    for (;;) {
      const answer = (await readline.question(`${question} (${fallback}): `)).trim() || fallback;
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
    const currency = await ask("Currency", "usd", currencyProblem);
    const database = await ask(`Database (${databaseChoices.join("|")})`, "pglite", oneOf(databaseChoices));
    const vault = await ask(`Stripe key source (${vaultChoices.join("|")})`, "env", oneOf(vaultChoices));
    return {
      directory,
      name,
      queue,
      currency,
      database: database as ScaffoldOptions["database"],
      vault: vault as ScaffoldOptions["vault"],
    };
  } finally {
    readline.close();
  }
}
