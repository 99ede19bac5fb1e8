// `chargeguard new consumer <dir>`: scaffolds a billing consumer project (templates room). Asks in a terminal when
// no option is given; otherwise takes the flags, with defaults for what is missing.
import path from "node:path";
import { type Command, Option } from "commander";
import {
  databaseChoices,
  promptScaffoldOptions,
  type ScaffoldOptions,
  scaffoldConsumer,
  vaultChoices,
} from "../../templates/index.js";

interface NewConsumerFlags {
  name?: string;
  queue?: string;
  currency?: string;
  db?: ScaffoldOptions["database"];
  vault?: ScaffoldOptions["vault"];
  link?: string;
}

export function register(program: Command): void {
  const command = program.command("new").description("create a new project from a chargeguard template");
  command
    .command("consumer")
    .description("a Service Bus -> Stripe billing consumer: guard, stable key, settlement policy, tests, CI, Dockerfile")
    .argument("<dir>", "the new project's directory (created; must be empty)")
    .option("--name <name>", "npm package name (default: the directory's name)")
    .option("--queue <queue>", "Service Bus queue to consume", "usage-billing")
    .option("--currency <code>", "ISO 4217 currency, lower case", "usd")
    .addOption(new Option("--db <kind>", "database: embedded PGlite by default, or PostgreSQL only").choices(databaseChoices))
    .addOption(new Option("--vault <kind>", "Stripe key: STRIPE_API_KEY, or Keybrake vault keys").choices(vaultChoices))
    .option("--link <path>", "depend on a local chargeguard checkout via file: (relative to <dir>), for offline use")
    .action(async (dir: string, flags: NewConsumerFlags, self: Command) => {
      const given = self.options.some((option) => self.getOptionValueSource(option.attributeName()) === "cli");
      const options =
        !given && process.stdin.isTTY
          ? await promptScaffoldOptions(dir)
          : {
              directory: dir,
              name: flags.name ?? path.basename(path.resolve(dir)),
              queue: flags.queue ?? "usage-billing",
              currency: flags.currency ?? "usd",
              database: flags.db ?? "pglite",
              vault: flags.vault ?? "env",
              ...(flags.link === undefined ? {} : { link: flags.link }),
            };
      const result = await scaffoldConsumer(options);
      const shown = path.relative(process.cwd(), result.directory) || ".";
      console.log(`Created ${options.name} in ${shown} (${result.files.length} files). Next:`);
      console.log(`  cd ${shown}`);
      console.log("  npm install");
      console.log("  npm test        # runs the consumer against the local sandbox");
      console.log("  npm start       # reads the run contract from the environment, see README.md");
    });
}
