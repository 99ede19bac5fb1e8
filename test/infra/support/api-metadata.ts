// What the provider itself says each resource may carry at the API version it sends: azure-native's per-resource
// declarations (`<service>/<resource>.d.ts`: the `<Resource>Args` interface and, in its doc comment, "Uses Azure REST
// API version ...") and the enums generated from that version's spec (`types/enums/<service>`). Read with the
// TypeScript compiler, so nothing is kept by hand: a property the version does not have, or an enum value it does not
// list, is named. azure-native types enum-valued properties as `string | enums.X` so newer values pass the compiler;
// here the enum decides, because the string is what Azure receives at that version.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import ts from "typescript";

export interface ConformanceProblem {
  resource: string;
  type: string;
  apiVersion: string;
  path: string;
  problem: string;
}

/**
 * Where the SDK's own metadata is wrong, each with its evidence: azure-native names its enums per module, and two
 * specs of one module that define an enum of the same name share one (the first). A test proves each still wrong, so
 * a provider upgrade that fixes it fails until the entry goes.
 */
export const SDK_METADATA_DEFECTS = [
  {
    type: "azure-native:monitor:ScheduledQueryRule",
    path: /^criteria\.allOf\[\d+\]\.operator$/,
    enumName: "monitor.ConditionOperator",
    // The scheduled query rules spec's own ConditionOperator (every version since 2020-05-01-preview, and the
    // operator Azure Monitor's log alerts document) is Equals, GreaterThan, GreaterThanOrEqual, LessThan,
    // LessThanOrEqual; the SDK's is the autoscale / data-collection operator of the same name (gt, lt, eq, ...).
    values: ["Equals", "GreaterThan", "GreaterThanOrEqual", "LessThan", "LessThanOrEqual"],
  },
];

const sdkRoot = dirname(createRequire(import.meta.url).resolve("@pulumi/azure-native/package.json"));

/** `azure-native:network:NatGateway` -> network/natGateway.d.ts and NatGatewayArgs. */
function declarationOf(type: string): { file: string; args: string } | undefined {
  const [provider, service, resource] = type.split(":");
  if (provider !== "azure-native" || !service || !resource || service.includes("/")) return undefined;
  return { file: join(sdkRoot, service, `${resource[0]!.toLowerCase()}${resource.slice(1)}.d.ts`), args: `${resource}Args` };
}

export class ApiMetadata {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;
  private current = "";

  constructor(types: string[]) {
    const files = [...new Set(types.map((t) => declarationOf(t)?.file).filter((f): f is string => f !== undefined))];
    this.program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, types: [], noResolve: false });
    this.checker = this.program.getTypeChecker();
  }

  /** The API version the SDK sends this resource type at, from its own doc comment. */
  apiVersion(type: string): string | undefined {
    const source = this.sourceOf(type);
    return source?.text.match(/Uses Azure REST API version (\d{4}-\d{2}-\d{2}(?:-preview)?)/)?.[1];
  }

  /** Every property and enum value of `inputs` that the resource's API version does not define. */
  check(type: string, resource: string, inputs: Record<string, unknown>): ConformanceProblem[] {
    const args = this.argsOf(type);
    const apiVersion = this.apiVersion(type) ?? "unknown";
    if (!args) return [{ resource, type, apiVersion, path: "", problem: "no declaration in @pulumi/azure-native for this type" }];
    const problems: string[][] = [];
    this.current = type;
    this.walkObject(args, inputs, "", problems);
    return problems.map(([path, problem]) => ({ resource, type, apiVersion, path: path!, problem: problem! }));
  }

  private sourceOf(type: string): ts.SourceFile | undefined {
    const declaration = declarationOf(type);
    return declaration ? this.program.getSourceFile(declaration.file) : undefined;
  }

  private argsOf(type: string): ts.InterfaceDeclaration | undefined {
    const name = declarationOf(type)?.args;
    const source = this.sourceOf(type);
    return source?.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  }

  private walkObject(declaration: ts.InterfaceDeclaration, value: Record<string, unknown>, path: string, problems: string[][]): void {
    const members = new Map<string, ts.TypeNode | undefined>();
    for (const member of declaration.members) {
      if (ts.isPropertySignature(member) && member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) {
        members.set(member.name.text, member.type);
      }
    }
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const at = path ? `${path}.${key}` : key;
      if (!members.has(key)) {
        problems.push([at, `not a property of ${declaration.name.text} at this API version`]);
        continue;
      }
      const node = members.get(key);
      if (node) this.walk(node, child, at, problems);
    }
  }

  /** The problems `value` has against `node`; a union takes the member that fits best, an enum beats a plain string. */
  private walk(node: ts.TypeNode, value: unknown, path: string, problems: string[][]): void {
    if (ts.isParenthesizedTypeNode(node)) return this.walk(node.type, value, path, problems);
    if (ts.isUnionTypeNode(node)) return this.walkUnion(node, value, path, problems);
    if (ts.isArrayTypeNode(node)) {
      if (Array.isArray(value)) value.forEach((item, i) => this.walk(node.elementType, item, `${path}[${i}]`, problems));
      return;
    }
    if (!ts.isTypeReferenceNode(node)) return;
    const name = node.typeName.getText();
    if ((name === "pulumi.Input" || name === "pulumi.Output") && node.typeArguments?.[0]) return this.walk(node.typeArguments[0], value, path, problems);
    if (name.startsWith("enums.")) return this.walkEnum(node, name, value, path, problems);
    if (name.startsWith("inputs.") && value !== null && typeof value === "object" && !Array.isArray(value)) {
      const declaration = this.interfaceOf(node);
      if (declaration) this.walkObject(declaration, value as Record<string, unknown>, path, problems);
    }
  }

  private walkUnion(node: ts.UnionTypeNode, value: unknown, path: string, problems: string[][]): void {
    const members = node.types.filter((t) => t.kind !== ts.SyntaxKind.UndefinedKeyword);
    const hasEnum = members.some((t) => ts.isTypeReferenceNode(t) && t.typeName.getText().startsWith("enums."));
    // `string | enums.X`: the string is the SDK's escape hatch for values newer than the version; the enum is the version.
    const candidates = hasEnum && typeof value === "string" ? members.filter((t) => t.kind !== ts.SyntaxKind.StringKeyword) : members;
    let best: string[][] | undefined;
    for (const member of candidates) {
      const found: string[][] = [];
      this.walk(member, value, path, found);
      if (!best || found.length < best.length) best = found;
      if (found.length === 0) return;
    }
    problems.push(...(best ?? []));
  }

  /** The values the SDK's enum `enums.<name>` lists (what a defect entry overrides). */
  enumValues(enumName: string): (string | number)[] {
    const source = this.program.getSourceFile(join(sdkRoot, "types", "enums", enumName.split(".")[0]!, "index.d.ts"));
    const alias = source?.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === enumName.split(".")[1]);
    if (!alias) return [];
    const type = this.checker.getTypeAtLocation(alias.name);
    return (type.isUnion() ? type.types : [type]).filter((t) => t.isStringLiteral() || t.isNumberLiteral()).map((t) => (t as ts.StringLiteralType | ts.NumberLiteralType).value);
  }

  private walkEnum(node: ts.TypeReferenceNode, name: string, value: unknown, path: string, problems: string[][]): void {
    const type = this.checker.getTypeFromTypeNode(node);
    const allowed = (type.isUnion() ? type.types : [type]).filter((t) => t.isStringLiteral() || t.isNumberLiteral()).map((t) => (t as ts.StringLiteralType | ts.NumberLiteralType).value);
    const enumName = name.slice("enums.".length);
    const defect = SDK_METADATA_DEFECTS.find((d) => d.enumName === enumName && d.path.test(path) && this.current === d.type);
    if (defect && defect.values.includes(value as string)) return;
    if (allowed.length > 0 && !allowed.includes(value as string | number)) {
      problems.push([path, `${JSON.stringify(value)} is not in ${enumName} (${allowed.map((v) => JSON.stringify(v)).join(", ")})`]);
    }
  }

  private interfaceOf(node: ts.TypeReferenceNode): ts.InterfaceDeclaration | undefined {
    let symbol = this.checker.getSymbolAtLocation(node.typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    return symbol?.declarations?.find(ts.isInterfaceDeclaration);
  }
}
