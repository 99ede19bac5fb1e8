import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const room = (name: string) => fileURLToPath(new URL(`./${name}/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run the TypeScript sources; "chargeguard/<room>" means the source room, not dist/.
    alias: {
      "chargeguard/infra": room("infra"),
      "chargeguard/runtime": room("runtime"),
      "chargeguard/sandbox": room("sandbox"),
      "chargeguard/templates": room("templates"),
      "chargeguard/tuning": room("tuning"),
    },
  },
  test: {
    include: ["test/**/*.test.ts", "eslint-plugin/tests/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
