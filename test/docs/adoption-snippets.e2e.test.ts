// The "adopt the guard in an existing consumer" snippets of the root README and runtime/README.md are what a team
// copies first: each must type-check against the runtime's real exports (the reader's own parts declared), and stay
// short enough to be read at a glance (issue: under 30 lines).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const scratch = path.join(root, ".tmp", "adoption-snippets");

/**
 * What the snippets leave to the reader: their receiver and sender, Stripe client and own parser. Nothing more: the
 * retry is the kit's own `scheduleRetry` (a `retryLater` declared here once hid that the root README called a
 * function no reader has).
 */
const readersOwnParts = `
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSender } from "@azure/service-bus";
import type Stripe from "stripe";
declare const stripe: Stripe;
declare const serviceBusReceiver: ServiceBusReceiver;
declare const serviceBusSender: ServiceBusSender;
declare function parseMyEvent(body: unknown): { id: string; cents: number; customer: string; day: string };
export {};
`;

function snippetUnder(readme: string, heading: string): string {
  const text = readFileSync(path.join(root, readme), "utf8");
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`${readme} has no "${heading}" section`);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block?.[1]) throw new Error(`${readme}: no ts block under "${heading}"`);
  return block[1];
}

const snippets = [
  ["README.md", "## Adopting the guard in an existing consumer"],
  ["runtime/README.md", "### Adopting it in an existing `processMessage`"],
].map(([readme, heading]) => ({ readme: readme!, snippet: snippetUnder(readme!, heading!) }));

/** Type errors per snippet, from one program over all of them (type-checking the runtime is the slow part). */
function typeErrorsByReadme(): Record<string, string[]> {
  mkdirSync(scratch, { recursive: true });
  const files = snippets.map(({ readme, snippet }) => {
    const file = path.join(scratch, `${readme.replace(/\W+/g, "-")}.ts`);
    writeFileSync(file, `${snippet}\n${readersOwnParts}`);
    return { readme, file };
  });
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.base.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(files.map(({ file }) => file), { ...config!.options, noEmit: true });
  return Object.fromEntries(
    files.map(({ readme, file }) => [
      readme,
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
    ]),
  );
}

describe("the adoption snippets", () => {
  it.each(snippets)("in $readme is under 30 lines", ({ snippet }) => {
    expect(snippet.trimEnd().split("\n").length).toBeLessThan(30);
  });

  it("type-check against chargeguard/runtime's real exports", () => {
    expect(typeErrorsByReadme()).toEqual(Object.fromEntries(snippets.map(({ readme }) => [readme, []])));
  });
});
