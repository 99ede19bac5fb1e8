// The chargeguard policy pack for `pulumi preview --policy-pack infra/policy` (after `npm run build`: this
// directory's package.json points `main` at the compiled file). Constructing a PolicyPack starts the policy gRPC
// server, so nothing else imports this file: tests and `chargeguard plan` use ./policies.ts directly.
import { PolicyPack } from "@pulumi/policy";
import { billingPolicies } from "./policies.js";

new PolicyPack("chargeguard", {
  description: "Service Bus queues safe for Stripe billing: locks that cover the Stripe budget, dead-letter alerts, least privilege.",
  policies: billingPolicies,
});
