// `chargeguard scan` across the files of one project: a receive mode and a lock renewal set in a Spring
// configuration class, application.yml or a Python receiver module count when another file charges, and the renewal
// is measured against the Stripe client the project configures (retries, read timeout), not only the SDK's defaults;
// a Java wrapper of the project around a charge (java-wrapper) is a charge where it is called, its key checked there;
// request options from a method of the project that builds them with no key (java-options-factory, #42) are reported
// on each charge that takes them, not on the builder.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScan } from "../../src/scan/index.js";
import { parameterNames } from "../../src/scan/java-wrappers.js";
import { lockRenewalSeconds, stripeBudget } from "../../src/scan/project-facts.js";
import { expectedFindings } from "./expected-findings.js";

const fixtures = fileURLToPath(new URL("../scan-fixtures", import.meta.url));

describe.each(["projects/spring", "projects/python", "projects/java-wrapper", "projects/java-options-factory", "projects/python-wrappers"])("a project's configuration apart from its charge: %s", (directory) => {
  it("reports the receive mode and the short renewal where they are set, and nothing else", async () => {
    const findings = await runScan([directory], { cwd: fixtures });
    expect(findings.map(({ ruleId, file, line }) => ({ ruleId, file, line }))).toEqual(expectedFindings(fixtures, directory));
  });
});

it("stays silent on the same configuration scanned without a file that charges", async () => {
  const configuration = ["projects/spring/src/ServiceBusConfig.java", "projects/spring/src/StripeConfig.java", "projects/spring/application.yml", "projects/spring/application-prod.yml", "projects/spring/application-dev.properties"];
  expect(await runScan(configuration, { cwd: fixtures })).toEqual([]);
});

it("words the renewal finding with the project's budget", async () => {
  const findings = await runScan(["projects/spring"], { cwd: fixtures });
  const renewal = findings.find((finding) => finding.file.endsWith("ServiceBusConfig.java") && finding.ruleId === "chargeguard/lock-renewal-covers-stripe");
  expect(renewal?.message).toContain("Here 300 s; one Stripe call can take 505 s (6 attempts of 80 s");
});

describe("the measures", () => {
  const match = (language: string, text: string) => ({ language, text, lines: text });
  it("reads Java, Python and Spring durations in seconds", () => {
    expect(lockRenewalSeconds(match("Java", ".maxAutoLockRenewDuration(Duration.ofMillis(90_000))"))).toBe(90);
    expect(lockRenewalSeconds(match("Java", "setMaxAutoLockRenewDuration(Duration.ZERO)"))).toBe(0);
    expect(lockRenewalSeconds(match("Python", "max_lock_renewal_duration=timedelta(minutes=4, seconds=30)"))).toBe(270);
    expect(lockRenewalSeconds(match("Python", "timedelta(minutes=1)"))).toBe(60);
    expect(lockRenewalSeconds(match("Python", "90"))).toBe(90);
    expect(lockRenewalSeconds(match("Yaml", "max-auto-lock-renew-duration: PT4M"))).toBe(240);
    expect(lockRenewalSeconds(match("Yaml", "max-auto-lock-renew-duration: 200000"))).toBe(200);
    expect(lockRenewalSeconds(match("Yaml", "max-auto-lock-renew-duration: 5m"))).toBe(300);
  });

  it("takes the defaults, or the largest retries and read timeout configured", () => {
    expect(stripeBudget([]).seconds).toBe(250);
    expect(stripeBudget([match("Python", "stripe.max_network_retries = 0")]).seconds).toBe(80);
    expect(stripeBudget([match("Java", "RequestOptions.builder().setReadTimeout(120_000)"), match("Java", "Stripe.setMaxNetworkRetries(3)")]).seconds).toBe(495);
    expect(stripeBudget([match("Python", "timeout=30")]).seconds).toBe(100);
  });
});

it("reads a wrapper's parameters whatever their modifiers and generics", () => {
  expect(parameterNames("public Charge charge(final ChargeCreateParams params, Map<String, List<Object>> extra, @NonNull RequestOptions options) {", "charge")).toEqual(["params", "extra", "options"]);
  expect(parameterNames("Charge none() {", "none")).toEqual([]);
});
