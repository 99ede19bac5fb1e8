// The generated consumer's image: a base pinned to an exact release (or a digest), never a moving tag, and a build
// context that cannot carry local secrets (.env files, .npmrc tokens) into a layer. Read from the committed example,
// which test/examples/generated-consumer.test.ts holds identical to what `chargeguard new consumer` writes.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const example = path.resolve(import.meta.dirname, "../../examples/generated-consumer");
const fromLines = () => readFileSync(path.join(example, "Dockerfile"), "utf8").split("\n").filter((line) => /^FROM\s/i.test(line));

describe("the generated consumer's container", () => {
  it("pins every base image to an exact release or a digest", () => {
    const froms = fromLines();
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const line of froms) expect(line).toMatch(/^FROM node:\d+\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?( AS \w+)?$/);
    // Both stages on one base: the runtime runs what the build stage compiled against.
    expect(new Set(froms.map((line) => line.split(/\s+/)[1]))).toHaveProperty("size", 1);
  });

  it("keeps .env files and .npmrc out of the build context", () => {
    const ignored = readFileSync(path.join(example, ".dockerignore"), "utf8").split("\n").map((line) => line.trim());
    // At any depth (Docker matches from the root only): dockerignore-context.test.ts builds the context to check it.
    expect(ignored).toEqual(expect.arrayContaining(["**/.env*", "**/.npmrc", "**/*.key", "**/sandbox.env", "**/app.env", "node_modules"]));
  });
});
