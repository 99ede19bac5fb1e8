// The runtime imports its heavy SDKs when a code path first needs them, not when `chargeguard/runtime` is imported
// (issue 32: importing the runtime under 300 ms; @azure/identity alone took 0.8 s). One loader per SDK, each a
// `loadOnce` over its own `import()`, so the compiler types what the callers get and a missing package says what to
// install instead of failing with a bare module-resolution error.
import { ConfigurationError } from "../core/errors.js";

/**
 * A function that imports a module on its first call and hands every later call the same promise. When the package
 * is not installed (`ERR_MODULE_NOT_FOUND`) the call rejects with a ConfigurationError carrying `missing`, and a later
 * call tries again; any other failure is passed on as it is.
 */
export function loadOnce<M>(importModule: () => Promise<M>, missing: string): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () => {
    loading ??= importModule().catch((error: unknown) => {
      loading = undefined;
      if ((error as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") throw error;
      throw new ConfigurationError(missing);
    });
    return loading;
  };
}

/** The message for a package chargeguard depends on that is missing from the install (a pruned or partial copy). */
export function missingDependency(name: string, neededFor: string): string {
  return `${neededFor} needs ${name}, which is not installed: chargeguard depends on it, so reinstall chargeguard's dependencies (npm install ${name})`;
}
