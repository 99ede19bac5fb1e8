import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The tests run the real Service Bus and Stripe SDKs against local emulators, and embedded PostgreSQL.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
