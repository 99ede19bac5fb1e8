// RuleTester wired to vitest, and the code every rule test starts from.
import { fileURLToPath } from "node:url";
import { RuleTester } from "@typescript-eslint/rule-tester";
import { afterAll, describe, it } from "vitest";

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

/** Name-based analysis only, as `configs.recommended` runs it: the typescript-eslint parser without a program. */
export const ruleTester = new RuleTester();

export const fixturesDir = fileURLToPath(new URL("./fixtures", import.meta.url));

/** Typed linting against `fixtures/tsconfig.json`, as `configs["recommended-type-checked"]` runs it. */
export const typedRuleTester = new RuleTester({
  languageOptions: {
    parserOptions: {
      projectService: true,
      tsconfigRootDir: fixturesDir,
    },
  },
});

/** An ESM TypeScript consumer's imports and clients. */
export const esmHeader = `
import Stripe from "stripe";
import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const receiver = new ServiceBusClient(process.env.SERVICEBUS_CONNECTION_STRING!).createReceiver("billing");
`;

/** The same in CommonJS (`.cjs`). */
export const cjsHeader = `
const Stripe = require("stripe");
const { ServiceBusClient } = require("@azure/service-bus");
const stripe = Stripe(process.env.STRIPE_SECRET_KEY);
const receiver = new ServiceBusClient(process.env.SERVICEBUS_CONNECTION_STRING).createReceiver("billing");
`;
