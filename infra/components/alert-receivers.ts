// Who a billing namespace's alerts notify: the receivers of its one action group (namespace-alerts.ts builds it).
import type * as pulumi from "@pulumi/pulumi";

export interface BillingAlertReceivers {
  emails?: pulumi.Input<string>[];
  webhooks?: { name: string; url: pulumi.Input<string> }[];
  /** The action group's short name in SMS and e-mail (Azure allows 12 characters), default "billing". */
  shortName?: string;
}
