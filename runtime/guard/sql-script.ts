// A migration file as the statements it holds. The adapters run one statement per query (PGlite's `query` uses the
// extended protocol, which takes one), so a file is split at each `;` that ends a statement: not one inside a
// quoted string, a dollar-quoted function body or a comment. Comments are kept with the statement they precede.
import { ConfigurationError } from "../core/errors.js";

/** The dollar-quote tag (`$fn$`, `$$`) that starts at `at`, if one does. */
function dollarTagAt(sql: string, at: number): string | undefined {
  return /^\$[A-Za-z_]*\$/.exec(sql.slice(at, at + 64))?.[0];
}

/** Where the quoted, dollar-quoted or commented span starting at `at` ends (exclusive), or `at` when none starts. */
function skipQuoted(sql: string, at: number, source: string): number {
  const rest = sql.slice(at);
  if (rest.startsWith("--")) {
    const end = sql.indexOf("\n", at);
    return end < 0 ? sql.length : end + 1;
  }
  if (rest.startsWith("/*")) return closeAt(sql, at + 2, "*/", source);
  if (rest.startsWith("'")) return closeAt(sql, at + 1, "'", source);
  const tag = dollarTagAt(sql, at);
  return tag === undefined ? at : closeAt(sql, at + tag.length, tag, source);
}

function closeAt(sql: string, from: number, closing: string, source: string): number {
  const end = sql.indexOf(closing, from);
  if (end < 0) throw new ConfigurationError(`${source}: unterminated ${closing}`);
  return end + closing.length;
}

/**
 * The statements of a SQL file, in order, without their terminating `;`; comment-only remainders dropped. `source`
 * names the file in the error when a quote, comment or function body never closes.
 */
export function splitSqlStatements(sql: string, source: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let at = 0;
  while (at < sql.length) {
    const skipped = skipQuoted(sql, at, source);
    if (skipped > at) {
      at = skipped;
    } else if (sql[at] === ";") {
      statements.push(sql.slice(start, at));
      start = at + 1;
      at += 1;
    } else {
      at += 1;
    }
  }
  statements.push(sql.slice(start));
  return statements.map((statement) => statement.trim()).filter((statement) => !isOnlyComments(statement));
}

function isOnlyComments(statement: string): boolean {
  return statement.split("\n").every((line) => line.trim() === "" || line.trim().startsWith("--"));
}
