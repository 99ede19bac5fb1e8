// chargeguard's rules catch the code that charges a customer twice when a Service Bus message comes back
// (unstable idempotency keys, abandon on an unknown outcome, settling before the record, short lock renewal, ...).
// The project has a tsconfig, so they run with type information: the checker tells which objects are Stripe
// clients and Service Bus messages, and resolves the methods a handler calls through injected services.
import chargeguard from "eslint-plugin-chargeguard";
import tseslint from "typescript-eslint";

export default [
  { ignores: ["dist/", ".data/", "node_modules/"] },
  {
    files: ["**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { sourceType: "module", projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  chargeguard.configs["recommended-type-checked"],
];
