// The repository lints itself with typescript-eslint's recommended rules (not type-checked: speed) and its own plugin.
import { defineConfig, globalIgnores } from "eslint/config";
import tseslint from "typescript-eslint";
import chargeguard from "eslint-plugin-chargeguard";
import house from "./scripts/lint/room-directions.mjs";

export default defineConfig(
  globalIgnores([
    "**/dist/",
    "**/node_modules/",
    ".tmp/",
    ".data/",
    "coverage/",
    // Deliberately broken consumers: test/examples proves the plugin flags them.
    "examples/broken/",
    // Template sources with placeholders, not valid code until rendered.
    "templates/files/",
    // Code the rule tests lint in memory, with its own tsconfig.
    "eslint-plugin/tests/fixtures/",
    // Real public billing code, labelled for bench:lint-recall: it holds the risks on purpose.
    "eslint-plugin/corpus/",
  ]),
  tseslint.configs.recommended,
  chargeguard.configs.recommended,
  {
    // Tests reproduce the seeds' failure modes on purpose (keyless charges against the emulator, renewal turned off
    // to make a lock lapse, an abandon after a charge): the consumer-pattern rules guard production code. No test may
    // hold a secret key, though.
    name: "chargeguard/tests-reproduce-failures",
    files: ["test/**", "eslint-plugin/tests/**"],
    rules: {
      "chargeguard/stable-idempotency-key": "off",
      "chargeguard/require-idempotency-key": "off",
      "chargeguard/no-abandon-on-stripe-error": "off",
      "chargeguard/record-before-settle": "off",
      "chargeguard/lock-renewal-covers-stripe": "off",
      "chargeguard/no-receive-and-delete": "off",
      // Unit files share a worker's process (isolate: false): a replaced process.env outlives the file and keeps
      // later files' vi.stubEnv values after vi.unstubAllEnvs. Stub variables instead.
      "no-restricted-syntax": [
        "error",
        {
          selector: "AssignmentExpression[left.type='MemberExpression'][left.object.name='process'][left.property.name='env']",
          message: "Do not replace process.env in a test: use vi.stubEnv and vi.unstubAllEnvs.",
        },
      ],
    },
  },
  {
    // One concept per file and functions a reader takes in at once: what ARCHITECTURE.md asks of the rooms' code
    // (tests may hold longer tables of cases).
    name: "chargeguard/sizes",
    files: ["{cli,errors,infra,runtime,sandbox,prove,tuning,bench,scripts}/**/*.{ts,mjs}", "templates/*.ts", "eslint-plugin/src/**/*.ts"],
    rules: {
      "max-lines": ["error", { max: 400 }],
      "max-lines-per-function": ["error", { max: 80 }],
    },
  },
  {
    // The directions between rooms (scripts/lint/directions.mjs, from ARCHITECTURE.md): tests reach any file by path.
    name: "chargeguard/room-directions",
    files: ["**/*.{ts,mts,js,mjs}"],
    ignores: ["test/**", "eslint-plugin/tests/**", "scripts/**"],
    plugins: { house },
    rules: { "house/room-directions": "error" },
  },
  {
    // One reader of the environment (runtime/core/environment.ts): every variable documented and read once there;
    // the rest take its values, or an `env` a test hands in: the runtime and the CLI here, the generated consumer
    // through chargeguard/runtime (test/runtime/core/environment.test.ts). The CLI's sandbox and prove read only their
    // own tools' variables (the sandbox producer's connection string, the proving ground's TEST_DATABASE_URL).
    name: "chargeguard/one-environment-reader",
    files: ["runtime/**/*.ts", "cli/**/*.ts"],
    ignores: ["runtime/core/environment.ts", "cli/commands/sandbox.ts", "cli/commands/prove.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message:
            "Read the environment through runtime/core/environment.ts, the one reader: runtimeEnvironment in the runtime, consumerVariables (from chargeguard/runtime) for the consumer's variables.",
        },
      ],
    },
  },
  {
    name: "chargeguard/repository",
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
);
