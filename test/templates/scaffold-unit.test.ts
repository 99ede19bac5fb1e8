// The scaffolder's own rules: placeholders filled, names checked with clear messages, non-empty targets refused.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  consumerTemplateRoot,
  packageNameProblem,
  promptScaffoldOptions,
  PromptInterrupted,
  queueNameProblem,
  ScaffoldError,
  scaffoldConsumer,
} from "../../templates/index.js";
import { currencyProblem } from "../../templates/names.js";

const checkout = path.resolve(import.meta.dirname, "../..");
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-scaffold-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("scaffoldConsumer", () => {
  it("writes the template with every placeholder filled", async () => {
    const directory = path.join(scratch, "billing");
    const result = await scaffoldConsumer({
      directory,
      name: "@acme/billing",
      queue: "eu/usage.billing",
      currency: "eur",
      database: "postgres",
      vault: "keybrake",
      link: checkout,
    });
    expect(result.files).toEqual(expect.arrayContaining([".gitignore", "package.json", "src/consumer.ts", "Dockerfile"]));
    expect(result.files).not.toContain("_gitignore");
    for (const file of result.files) {
      expect(await readFile(path.join(directory, file), "utf8"), file).not.toMatch(/__[A-Z_]+__/);
    }
    const manifest = JSON.parse(await readFile(path.join(directory, "package.json"), "utf8"));
    expect(manifest.name).toBe("@acme/billing");
    expect(manifest.dependencies.chargeguard).toBe(`file:${checkout}`);
    expect(manifest.devDependencies["eslint-plugin-chargeguard"]).toBe(`file:${checkout}/eslint-plugin`);
    const settings = await readFile(path.join(directory, "src/settings.ts"), "utf8");
    expect(settings).toContain('queue: "eu/usage.billing"');
    expect(settings).toContain('"postgres" as "pglite" | "postgres"');
    expect(settings).toContain('"keybrake" as "env" | "keybrake"');
    expect(await readFile(path.join(directory, "test/consumer.test.ts"), "utf8")).toContain('const currency = "eur"');
  });

  it("depends on published versions without --link", async () => {
    const directory = path.join(scratch, "published");
    await scaffoldConsumer({ directory, name: "published", queue: "usage" });
    const manifest = JSON.parse(await readFile(path.join(directory, "package.json"), "utf8"));
    expect(manifest.dependencies.chargeguard).toMatch(/^\^\d+\.\d+\.\d+$/);
  });

  it("asks for PGlite itself: in production for --db pglite, for its tests only for --db postgres (chargeguard loads it, never installs it)", async () => {
    const pins = (JSON.parse(await readFile(path.join(checkout, "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies;
    for (const database of ["pglite", "postgres"] as const) {
      const directory = path.join(scratch, `db-${database}`);
      await scaffoldConsumer({ directory, name: `db-${database}`, queue: "usage", database });
      const manifest = JSON.parse(await readFile(path.join(directory, "package.json"), "utf8")) as Record<string, Record<string, string>>;
      const [wanted, unwanted] = database === "pglite" ? ["dependencies", "devDependencies"] : ["devDependencies", "dependencies"];
      expect(manifest[wanted]?.["@electric-sql/pglite"], database).toBe(pins["@electric-sql/pglite"]);
      expect(manifest[unwanted]?.["@electric-sql/pglite"], database).toBeUndefined();
      expect(Object.keys(manifest[wanted] ?? {}), "kept sorted").toEqual(Object.keys(manifest[wanted] ?? {}).sort());
    }
  });

  it("refuses a non-empty directory and writes nothing", async () => {
    const directory = path.join(scratch, "occupied");
    await scaffoldConsumer({ directory, name: "occupied", queue: "usage" }).catch(() => {});
    await writeFile(path.join(directory, "notes.txt"), "mine");
    await expect(scaffoldConsumer({ directory, name: "occupied", queue: "usage" })).rejects.toThrow(/is not empty/);
  });

  it("reports every invalid option at once", async () => {
    const attempt = scaffoldConsumer({
      directory: path.join(scratch, "invalid"),
      name: "Billing",
      queue: "-usage",
      currency: "EURO",
      link: path.join(scratch, "nowhere"),
    });
    await expect(attempt).rejects.toBeInstanceOf(ScaffoldError);
    await expect(attempt).rejects.toThrow(/capital letters[\s\S]*start and end[\s\S]*ISO 4217[\s\S]*no package\.json/);
  });

  it("refuses a --link that is not a chargeguard checkout", async () => {
    await expect(
      scaffoldConsumer({ directory: path.join(scratch, "bad-link"), name: "x", queue: "q", link: path.join(checkout, "eslint-plugin") }),
    ).rejects.toThrow(/not a chargeguard checkout/);
  });

  it("finds its template beside the sources", () => {
    expect(consumerTemplateRoot()).toBe(path.join(checkout, "templates", "files", "consumer"));
  });
});

describe("name rules", () => {
  it.each([
    ["usage-billing", undefined],
    ["@acme/usage-billing", undefined],
    ["", /empty/],
    ["Usage", /capital/],
    [".hidden", /starts with/],
    ["_private", /starts with/],
    ["has space", /characters npm does not allow/],
    ["@acme", /scope without a name/],
    ["http", /reserved/],
    ["node_modules", /reserved/],
    ["a".repeat(215), /214/],
  ])("package name %j", (name, problem) => {
    const found = packageNameProblem(name);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it.each([
    ["usage-billing", undefined],
    ["eu/usage.billing_v2", undefined],
    ["", /empty/],
    ["-usage", /start and end/],
    ["usage.", /start and end/],
    ["usage$dlq", /characters Service Bus does not allow/],
    ["a//b", /empty path segment/],
    ["q".repeat(261), /260/],
  ])("queue name %j", (queue, problem) => {
    const found = queueNameProblem(queue);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it("currency is a lower-case ISO 4217 code", () => {
    expect(currencyProblem("usd")).toBeUndefined();
    expect(currencyProblem("USD")).toMatch(/lower case/);
    expect(currencyProblem("us")).toMatch(/three-letter/);
  });
});

describe("promptScaffoldOptions", () => {
  it("asks each question, re-asks an invalid answer, and takes defaults on empty answers", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const transcript: string[] = [];
    output.on("data", (chunk: Buffer) => transcript.push(chunk.toString()));
    // Answer each question as it appears; "Bad Name" must be asked again. The PaymentIntent flow asks what identifies
    // one billing (after the flow), "per-customer" asked again.
    const answers = ["Bad Name", "my-billing", "", "", "per-customer", "customer-period", "", "postgres", "", ""];
    let given = 0;
    output.on("data", (chunk: Buffer) => {
      if (chunk.toString().endsWith(": ") && given < answers.length) input.write(`${answers[given++]}\n`);
    });
    const asked = promptScaffoldOptions(path.join(scratch, "prompted"), { input, output });
    const options = await asked;
    expect(options).toMatchObject({
      name: "my-billing", queue: "usage-billing", flow: "payment-intent", billingIdentity: "customer-period", currency: "usd", database: "postgres", vault: "env", telemetry: "azure-monitor",
    });
    expect(options.vendor).toBeUndefined();
    expect(transcript.join("")).toMatch(/capital letters/);
    expect(transcript.join("")).toMatch(/What identifies one billing: usage-event .* \(usage-event\|customer-period\) \(usage-event\): +choose one of usage-event, customer-period/);
  });

  it("asks the flow, the database and vendoring (yes by default for an unpublished copy); no vault question but for payment-intent", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const questions: string[] = [];
    // name, queue, flow ("bogus" asked again), currency, database, telemetry, vendoring (default yes)
    const answers = ["", "", "bogus", "invoice", "", "", "otlp", ""];
    output.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.endsWith(": ") && questions.length < answers.length) {
        questions.push(text);
        input.write(`${answers[questions.length - 1]}\n`);
      }
    });
    const options = await promptScaffoldOptions(path.join(scratch, "prompted-flow"), { input, output }, { from: checkout, byDefault: true });
    expect(options).toMatchObject({ flow: "invoice", database: "pglite", vault: "env", telemetry: "otlp", vendor: checkout });
    expect(questions.join("")).toMatch(/Stripe billing flow \(payment-intent\|charge\|invoice\|meter-event\)/);
    expect(questions.join("")).toMatch(/Database: embedded PGlite, or PostgreSQL only/);
    expect(questions.join("")).toMatch(/Vendor chargeguard into vendor\/\? yes: packs .* \(this copy is not on the npm registry yet\); no: from the npm registry \(yes\|no\) \(yes\)/);
    expect(questions.join("")).not.toMatch(/Stripe key source/);
  });

  it("Ctrl-C at a question ends the prompt with PromptInterrupted (the CLI's exit 130), nothing asked after it", async () => {
    const input = new PassThrough();
    // A terminal, as a user's: readline reads Ctrl-C (\x03) as SIGINT only in terminal mode.
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    const questions: string[] = [];
    output.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      if (!text.endsWith(": ")) return;
      questions.push(text);
      input.write(questions.length === 1 ? "my-billing\r" : "\x03");
    });
    const asked = promptScaffoldOptions(path.join(scratch, "prompted-interrupted"), { input, output });
    await expect(asked).rejects.toThrow(new PromptInterrupted("interrupted at the prompt (Ctrl-C): nothing was written"));
    expect(questions).toHaveLength(2);
    expect(existsSync(path.join(scratch, "prompted-interrupted"))).toBe(false);
  });
});
