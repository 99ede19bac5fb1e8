// The directions between rooms, linted (scripts/lint/room-directions.mjs, in `npm run lint`): real ESLint with the
// repository's own config, on imports written the wrong way on purpose and their right counterparts.
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const eslint = new ESLint({ cwd: root });

/** The room-directions messages ESLint gives `code` as if it stood at `file`. */
async function directions(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((message) => message.ruleId === "house/room-directions").map((message) => message.message);
}

describe("room directions", () => {
  it("refuses a runtime room importing a higher floor, and lets it import a lower one", async () => {
    expect(await directions("runtime/guard/new-part.ts", 'import { createBillingHandler } from "../handler/billing-handler.js";\nexport { createBillingHandler };\n')).toEqual([
      "runtime/guard (floor 5) may not import runtime/handler (floor 8): a runtime room imports only lower floors (ARCHITECTURE.md, Rooms)",
    ]);
    expect(await directions("runtime/guard/new-part.ts", 'export { ChargeguardError } from "../core/errors.js";\n')).toEqual([]);
  });

  it("refuses two runtime rooms on one floor importing each other, and a file loose at the runtime's root", async () => {
    expect(await directions("runtime/consumer/new-part.ts", 'export { reconcile } from "../operator/reconcile.js";\n')).toHaveLength(1);
    expect(await directions("runtime/loose.ts", 'export { ChargeguardError } from "./core/errors.js";\n')).toEqual([
      "runtime/loose.ts stands in no room of the runtime (runtime/<room>/; only the door is at the root) (ARCHITECTURE.md, Rooms)",
    ]);
  });

  it("refuses the sandbox and the lint plugin importing another room", async () => {
    expect(await directions("sandbox/new-part.ts", 'import type { UsageEvent } from "../runtime/index.js";\nexport type E = UsageEvent;\n')).toEqual([
      "sandbox may not import runtime (it imports no other room) (ARCHITECTURE.md, Rooms)",
    ]);
    expect(await directions("eslint-plugin/src/new-part.ts", 'export { tuneQueue } from "../../tuning/index.js";\n')).toHaveLength(1);
  });

  it("lets the CLI, prove and bench into the runtime through its doors only, dynamic imports included", async () => {
    expect(await directions("cli/commands/new-part.ts", 'export const load = () => import("../../runtime/stripe/stripe-access.js");\n')).toEqual([
      'cli may import the runtime only through its doors (package.json "exports"), not runtime/stripe/stripe-access.js (ARCHITECTURE.md, Rooms)',
    ]);
    expect(await directions("prove/new-part.ts", 'export { reconcile } from "../runtime/operator/index.js";\n')).toEqual([]);
    expect(await directions("bench/new-part.ts", 'export { Guard } from "../runtime/guard/guard.js";\n')).toHaveLength(1);
  });

  it("lets every room of the kit build on the errors floor, but not the sandbox, which stands for Azure and Stripe", async () => {
    const base = 'export { ChargeguardError } from "../errors/index.js";\n';
    for (const room of ["tuning", "infra", "templates", "cli", "prove", "bench"]) expect(await directions(`${room}/new-part.ts`, base), room).toEqual([]);
    expect(await directions("runtime/core/new-part.ts", 'export { ChargeguardError } from "../../errors/index.js";\n')).toEqual([]);
    expect(await directions("sandbox/new-part.ts", base)).toEqual(["sandbox may not import errors (it imports no other room) (ARCHITECTURE.md, Rooms)"]);
  });

  it("leaves tests free to reach any file by path", async () => {
    expect(await directions("test/runtime/new-part.test.ts", 'export { Guard } from "../../runtime/guard/guard.js";\n')).toEqual([]);
  });
});
