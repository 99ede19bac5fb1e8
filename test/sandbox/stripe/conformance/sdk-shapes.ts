// Reads the property names of Stripe's resource interfaces from the pinned `stripe` SDK's own declaration files
// (generated from Stripe's OpenAPI spec), with the TypeScript compiler API: the reference the emulator is checked
// against is the SDK the project ships with, not a list written here.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import ts from "typescript";

export interface SdkShape {
  /** Properties the interface declares without `?`: the API always sends them (nullable ones as null). */
  required: string[];
  /** Every property the interface declares. */
  all: string[];
}

/** The installed SDK's root: up from its entry point to the directory holding its package.json. */
function sdkRoot(): string {
  let dir = dirname(createRequire(import.meta.url).resolve("stripe"));
  while (!existsSync(join(dir, "package.json")) || basename(dir) !== "stripe") {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("the stripe package's root was not found");
    dir = parent;
  }
  return dir;
}

const resourcesDir = join(sdkRoot(), "esm", "resources");

/** `interface <name>` in `resources/<file>.d.ts`, e.g. ("Charges", "Charge") or ("Billing/Meters", "Meter"). */
export function sdkShape(file: string, name: string): SdkShape {
  const cached = shapes.get(`${file}#${name}`);
  if (cached) return cached;
  const shape = readShape(file, name);
  shapes.set(`${file}#${name}`, shape);
  return shape;
}

const shapes = new Map<string, SdkShape>();

function readShape(file: string, name: string): SdkShape {
  const path = join(resourcesDir, `${file}.d.ts`);
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, false);
  const found = source.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name);
  if (!found) throw new Error(`interface ${name} not found in ${path}`);
  const all: string[] = [];
  const required: string[] = [];
  for (const member of found.members) {
    if (!ts.isPropertySignature(member) || !member.name) continue;
    const property = member.name.getText(source);
    // `deleted?: void` marks the non-deleted variant: never sent.
    if (member.type?.kind === ts.SyntaxKind.VoidKeyword) continue;
    all.push(property);
    if (!member.questionToken) required.push(property);
  }
  return { required, all };
}

/** Problems of one response object against its SDK shape: missing required properties, properties the type lacks. */
export function shapeProblems(object: Record<string, unknown>, shape: SdkShape): string[] {
  const problems = shape.required.filter((property) => !(property in object)).map((property) => `missing ${property}`);
  for (const property of Object.keys(object)) if (!shape.all.includes(property)) problems.push(`not in the SDK's type: ${property}`);
  return problems;
}

/** The SDK's version and the API version it speaks (`apiVersion.js`): what the emulator claims to follow. */
export function sdkVersions(): { sdk: string; api: string } {
  const root = sdkRoot();
  const sdk = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  const api = /ApiVersion = '([^']+)'/.exec(readFileSync(join(root, "esm", "apiVersion.js"), "utf8"))?.[1] ?? "unknown";
  return { sdk, api };
}
