import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { bindingOf, isGlobalReference } from "./binding.js";
import { patternPath } from "./pattern-path.js";
import { staticName } from "./static-name.js";
import { unwrap } from "./unwrap.js";

/**
 * Where a value comes from when it is a module export or a global: `{ module: "crypto", path: ["randomUUID"] }`
 * for `randomUUID` imported from `node:crypto`, `crypto.randomUUID` (namespace import, `require`, or the Web
 * Crypto global) alike. Globals other than `crypto` have module `"<global>"`: `Math.random` is
 * `{ module: "<global>", path: ["Math", "random"] }`.
 */
export interface ModuleOrigin {
  module: string;
  path: string[];
}

const GLOBAL_OBJECTS = new Set(["globalThis", "global", "window", "self"]);
/** Globals that behave like a module (the Web Crypto `crypto` has node:crypto's `randomUUID`). */
const GLOBAL_MODULES = new Set(["crypto"]);

const cache = new WeakMap<TSESTree.Node, ModuleOrigin | null>();

export function moduleOrigin(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): ModuleOrigin | null {
  const target = unwrap(node);
  const cached = cache.get(target);
  if (cached !== undefined) return cached;
  cache.set(target, null); // cycle guard: `const a = b, b = a`
  const origin = compute(sourceCode, target);
  cache.set(target, origin);
  return origin;
}

function compute(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): ModuleOrigin | null {
  switch (node.type) {
    case AST_NODE_TYPES.Identifier:
      return identifierOrigin(sourceCode, node);
    case AST_NODE_TYPES.MemberExpression: {
      const name = staticName(node);
      const base = name === null ? null : moduleOrigin(sourceCode, node.object);
      return base && name !== null ? normalise({ module: base.module, path: [...base.path, name] }) : null;
    }
    case AST_NODE_TYPES.CallExpression: {
      const specifier = requireSpecifier(sourceCode, node);
      return specifier === null ? null : { module: moduleName(specifier), path: [] };
    }
    case AST_NODE_TYPES.ImportExpression:
      return node.source.type === AST_NODE_TYPES.Literal && typeof node.source.value === "string"
        ? { module: moduleName(node.source.value), path: [] }
        : null;
    default:
      return null;
  }
}

function identifierOrigin(sourceCode: Readonly<TSESLint.SourceCode>, identifier: TSESTree.Identifier): ModuleOrigin | null {
  if (isGlobalReference(sourceCode, identifier)) return normalise({ module: "<global>", path: [identifier.name] });
  const binding = bindingOf(sourceCode, identifier);
  if (!binding) return null;
  const { definition } = binding;
  if (definition.type === "ImportBinding") {
    const specifier = definition.node;
    const declaration = definition.parent;
    if (declaration.type !== AST_NODE_TYPES.ImportDeclaration) return null;
    const module = moduleName(declaration.source.value);
    if (specifier.type === AST_NODE_TYPES.ImportSpecifier) {
      const imported = specifier.imported;
      const name = imported.type === AST_NODE_TYPES.Identifier ? imported.name : String(imported.value);
      return { module, path: name === "default" ? [] : [name] };
    }
    return { module, path: [] };
  }
  if (definition.type === "Variable" && definition.node.type === AST_NODE_TYPES.VariableDeclarator && definition.node.init) {
    const base = moduleOrigin(sourceCode, definition.node.init);
    if (!base) return null;
    const path = patternPath(definition.node.id, definition.name as TSESTree.Identifier);
    if (path === null || path.some((step) => typeof step === "number")) return null;
    return normalise({ module: base.module, path: [...base.path, ...(path as string[])] });
  }
  return null;
}

/** `require("x")` with the global `require` (CommonJS). */
export function requireSpecifier(sourceCode: Readonly<TSESLint.SourceCode>, call: TSESTree.CallExpression): string | null {
  const [argument] = call.arguments;
  if (
    call.callee.type === AST_NODE_TYPES.Identifier &&
    call.callee.name === "require" &&
    argument?.type === AST_NODE_TYPES.Literal &&
    typeof argument.value === "string" &&
    isGlobalReference(sourceCode, call.callee)
  ) {
    return argument.value;
  }
  return null;
}

function moduleName(specifier: string): string {
  return specifier.startsWith("node:") ? specifier.slice(5) : specifier;
}

function normalise(origin: ModuleOrigin): ModuleOrigin {
  if (origin.module !== "<global>") return origin;
  const path = GLOBAL_OBJECTS.has(origin.path[0] ?? "") && origin.path.length > 1 ? origin.path.slice(1) : origin.path;
  const [head, ...rest] = path;
  if (head !== undefined && GLOBAL_MODULES.has(head)) return { module: head, path: rest };
  return { module: "<global>", path };
}
