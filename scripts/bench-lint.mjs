#!/usr/bin/env node
// npm run bench:lint: how much eslint-plugin-chargeguard's recommended config adds to lint time.
// Generates a deterministic corpus (seeded) of realistic TypeScript files (billing consumers, services, utilities),
// then lints all of it in one process with the typescript-eslint parser and typescript-eslint's recommended rules
// (what a TypeScript team runs anyway), without and with chargeguard's configs.recommended, in alternating rounds
// after a warm-up, and prints the medians and the overhead ratio. Two corpora, one after the other: a realistic
// repository (15% consumers, the rest services and utilities; target: at most +5%) and a repository made entirely of
// billing code (function and class consumers, Stripe billing services injected into them; target: at most 1.10x).
// The ratio is taken on the process's CPU time (user + system): on a shared machine wall-clock time mostly
// measures the neighbours. Wall-clock medians are printed too, and a final run with ESLint's per-rule statistics
// gives the time spent inside chargeguard's rules, a figure no neighbour can blur.
// BENCH_CONFIG=type-checked compares typed linting instead: typescript-eslint's own type-checked set
// (`recommendedTypeChecked`, with the project service) alone against the same plus chargeguard's
// `recommended-type-checked` (target: at most 1.10x on either corpus). The typed corpus is written under the
// repository's `.tmp/` with a tsconfig, so `stripe`, `@azure/service-bus` and `pg` resolve to their real types.
// Options (environment): BENCH_FILES (default 2400), BENCH_ROUNDS (default 5), BENCH_SEED (default 20261130),
// BENCH_CORPUS (realistic, billing, or both: the default), BENCH_CONFIG (recommended, the default, or type-checked;
// `--type-checked` and `npm run bench:lint:typed` say the same).
// The parts, in scripts/bench-lint/: seeded-random (the one stream of draws), file-templates and corpus (what is
// linted), lint-once (one measured lint), rounds (the timing rounds and the overhead), rule-time (eslint's stats).
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writeCorpus } from "./bench-lint/corpus.mjs";
import { reportRuleTime } from "./bench-lint/rule-time.mjs";
import { reportOverhead, timeRounds } from "./bench-lint/rounds.mjs";
import { seededDraws } from "./bench-lint/seeded-random.mjs";

const FILES = Number(process.env.BENCH_FILES ?? 2400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SEED = Number(process.env.BENCH_SEED ?? 20261130);
const CORPORA = (process.env.BENCH_CORPUS ?? "realistic,billing").split(",").map((name) => name.trim()).filter(Boolean);
const CONFIG = process.argv.includes("--type-checked") ? "type-checked" : (process.env.BENCH_CONFIG ?? "recommended");
if (CONFIG !== "recommended" && CONFIG !== "type-checked") throw new Error(`BENCH_CONFIG: unknown config "${CONFIG}" (recommended or type-checked)`);
const TYPED = CONFIG === "type-checked";
/** Overhead targets by corpus (the ratio minus one); typed linting: 1.10x of typescript-eslint's type-checked set. */
const TARGETS = TYPED ? { realistic: 0.1, billing: 0.1 } : { realistic: 0.05, billing: 0.1 };
const REPOSITORY = fileURLToPath(new URL("..", import.meta.url));
// One stream for the whole run: the billing corpus continues the draws where the realistic one ended.
const draws = seededDraws(SEED);

for (const corpus of CORPORA) await benchmark(corpus);

async function benchmark(corpus) {
  const target = TARGETS[corpus];
  if (target === undefined) throw new Error(`BENCH_CORPUS: unknown corpus "${corpus}" (realistic or billing)`);
  // Typed: inside the repository, so the corpus's imports resolve to node_modules' real types.
  const directory = TYPED
    ? path.join(REPOSITORY, ".tmp", `bench-lint-${corpus}-typed-${SEED}`)
    : path.join(tmpdir(), `chargeguard-bench-lint-${corpus}-${SEED}`);
  const counts = writeCorpus(directory, corpus, { files: FILES, typed: TYPED, draws });
  console.log(`\n[${corpus}${TYPED ? ", type-checked" : ""}] corpus: ${FILES} TypeScript files (${counts.consumers} consumers, ${counts.services} services, ${counts.utilities} utilities), seed ${SEED}, in ${directory}`);

  const timed = await timeRounds(directory, { rounds: ROUNDS, typed: TYPED });
  reportOverhead(timed, { corpus, config: CONFIG, target });
  await reportRuleTime(directory, { typed: TYPED });
  rmSync(directory, { recursive: true, force: true });
}
