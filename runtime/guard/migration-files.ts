// The guard's schema steps as numbered SQL files (graphile-worker's `sql/000001.sql`): runtime/guard/sql/NNNNNN.sql,
// shipped in the package beside the compiled code (the build copies the folder into dist/). Each file starts with
// `-- description: ...` (what chargeguard_schema_version records); a step whose objects a later step replaced is
// named NNNNNN.retired.sql and says why under `-- retired: ...`: it still runs on a new database, so every database
// reaches the same schema through the same versions.
import { readdirSync, readFileSync } from "node:fs";
import { ConfigurationError } from "../core/errors.js";
import { splitSqlStatements } from "./sql-script.js";

export interface MigrationFile {
  version: number;
  description: string;
  /** Named `.retired.sql`: what it created was replaced or made to refuse by a later step. */
  retired: boolean;
  statements: string[];
}

const fileName = /^(\d{6})(\.retired)?\.sql$/;

/** Where the files are: beside this module, in sources and in dist/ alike. */
export const migrationFolder = new URL("./sql/", import.meta.url);

function header(text: string, name: string, file: string): string | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`-- ${name}: `));
  if (line === undefined) return undefined;
  const value = line.slice(`-- ${name}: `.length).trim();
  if (value === "") throw new ConfigurationError(`guard migration ${file} has an empty '-- ${name}:' line`);
  return value;
}

function readOne(folder: URL, file: string, version: number, retired: boolean): MigrationFile {
  const text = readFileSync(new URL(file, folder), "utf8");
  const description = header(text, "description", file);
  if (description === undefined) throw new ConfigurationError(`guard migration ${file} does not start with '-- description: ...'`);
  if (retired && header(text, "retired", file) === undefined) {
    throw new ConfigurationError(`guard migration ${file} is named retired but has no '-- retired: <why>' line`);
  }
  return { version, description, retired, statements: splitSqlStatements(text, `guard migration ${file}`) };
}

/** The numbered files in order; throws when one is missing, misnamed or numbered twice, naming the file. */
export function readMigrationFiles(folder: URL = migrationFolder): MigrationFile[] {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith(".sql") && name !== "schema.sql");
  } catch (error) {
    throw new ConfigurationError(`the guard's migration files are missing (${folder.pathname}): the chargeguard install is incomplete`, { cause: error });
  }
  const files = names
    .map((name) => {
      const match = fileName.exec(name);
      if (match === null) throw new ConfigurationError(`guard migration ${name} is not named NNNNNN.sql or NNNNNN.retired.sql`);
      return readOne(folder, name, Number(match[1]), match[2] !== undefined);
    })
    .sort((a, b) => a.version - b.version);
  files.forEach((file, at) => {
    if (file.version !== at + 1) throw new ConfigurationError(`guard migration ${String(at + 1).padStart(6, "0")} is missing or numbered twice`);
  });
  return files;
}
