// chargeguard's rules catch the code that charges a customer twice when a Service Bus message comes back
// (unstable idempotency keys, abandon on an unknown outcome, settling before the record, short lock renewal, ...).
import chargeguard from "eslint-plugin-chargeguard";
import tseslint from "typescript-eslint";

export default [
  { ignores: ["dist/", ".data/", "node_modules/"] },
  {
    files: ["**/*.ts"],
    languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module" } },
  },
  chargeguard.configs.recommended,
];
