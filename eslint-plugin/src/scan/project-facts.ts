/**
 * What `chargeguard scan` decides across files, after ast-grep has matched each file on its own: ast-grep has no
 * notion of a project, and a Spring configuration class, an `application.yml` or a receiver module sets the receive
 * mode and the lock renewal apart from the service that charges. Rules say what they need in their metadata:
 * `role: charges` marks a file that moves money, `role: stripe-budget` a configured Stripe retry count or timeout
 * (marks, never findings); `scope: project` findings count only when some scanned file charges; `measure:
 * lock-renewal` findings carry a literal deadline, kept only when it is shorter than one Stripe call's worst case.
 */
export interface RuleMetadata {
  /**
   * `money-wrapper`: a method of the project that hands its caller's key or options to a charge; `options-factory`: a
   * method that returns request options with no key (java-wrappers.ts); `unstable-function`, `params-factory`: a Python
   * function returning an unstable value, or params with no key (python-wrappers.ts).
   */
  role?: "charges" | "stripe-budget" | "money-wrapper" | "options-factory" | "unstable-function" | "params-factory";
  passes?: "options" | "key";
  scope?: "project";
  measure?: "lock-renewal";
}

/** The fields of an ast-grep match read here (`--json=compact --include-metadata`). */
export interface ProjectMatch {
  text: string;
  lines: string;
  message: string;
  language: string;
  metadata?: RuleMetadata | null;
}

/** stripe-node, stripe-python and stripe-java defaults: 80 s per attempt, 2 retries, up to 5 s backoff between. */
const DEFAULT_ATTEMPT_SECONDS = 80;
const DEFAULT_RETRIES = 2;
const BACKOFF_SECONDS = 5;

export interface StripeBudget {
  seconds: number;
  attemptSeconds: number;
  retries: number;
}

export function applyProjectFacts<Match extends ProjectMatch>(matches: readonly Match[]): Match[] {
  const charges = matches.some((match) => match.metadata?.role === "charges");
  const marks = matches.filter((match) => match.metadata?.role === "stripe-budget");
  // A Python client's settings say nothing about a Java one's: each stack has its own budget (Spring's YAML and
  // properties count as Java).
  const budgetOf = (match: ProjectMatch) => stripeBudget(marks.filter((mark) => stackOf(mark) === stackOf(match)));
  const kept: Match[] = [];
  for (const match of matches) {
    if (match.metadata?.role) continue;
    if (match.metadata?.scope === "project" && !charges) continue;
    if (match.metadata?.measure !== "lock-renewal") {
      kept.push(match);
      continue;
    }
    const seconds = lockRenewalSeconds(match);
    const budget = budgetOf(match);
    if (seconds === null || seconds >= budget.seconds) continue;
    kept.push({ ...match, message: `${match.message} ${budgetWording(seconds, budget)}` });
  }
  return kept;
}

function stackOf(match: ProjectMatch): string {
  const language = match.language.toLowerCase();
  return language === "yaml" || language === "properties" ? "java" : language;
}

/** The worst case of one Stripe call with the largest retry count and read timeout the project configures. */
export function stripeBudget(marks: readonly Pick<ProjectMatch, "text" | "language">[]): StripeBudget {
  const retries: number[] = [];
  const attempts: number[] = [];
  for (const { text, language } of marks) {
    for (const found of text.matchAll(/(?:setMaxNetworkRetries\(|max_network_retries\s*=\s*)([\d_]+)/g)) retries.push(Number(found[1]!.replace(/_/g, "")));
    for (const found of text.matchAll(/setReadTimeout\(\s*([\d_]+)/g)) attempts.push(Number(found[1]!.replace(/_/g, "")) / 1000);
    if (language.toLowerCase() === "python") for (const found of text.matchAll(/^timeout\s*=\s*([\d.]+)$/g)) attempts.push(Number(found[1]));
  }
  const retryCount = retries.length > 0 ? Math.max(...retries) : DEFAULT_RETRIES;
  const attemptSeconds = attempts.length > 0 ? Math.max(...attempts) : DEFAULT_ATTEMPT_SECONDS;
  return { seconds: (retryCount + 1) * attemptSeconds + retryCount * BACKOFF_SECONDS, attemptSeconds, retries: retryCount };
}

function budgetWording(seconds: number, budget: StripeBudget): string {
  return `Here ${seconds} s; one Stripe call can take ${budget.seconds} s (${budget.retries + 1} attempts of ${budget.attemptSeconds} s plus ${BACKOFF_SECONDS} s of backoff between, as the project configures the client or at the SDK's defaults). Renew for at least ${budget.seconds} s.`;
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, Millis: 0.001, Seconds: 1, Minutes: 60, Hours: 3600 };

/** The deadline a lock renewal match sets, in seconds, or `null` when it is not a literal this reads. */
export function lockRenewalSeconds(match: Pick<ProjectMatch, "text" | "lines" | "language">): number | null {
  switch (match.language.toLowerCase()) {
    case "java": {
      if (/Duration\.ZERO/.test(match.lines)) return 0;
      const found = /Duration\.of(Millis|Seconds|Minutes|Hours)\(\s*([\d_]+)L?\s*\)/.exec(match.lines);
      return found ? Number(found[2]!.replace(/_/g, "")) * UNIT_SECONDS[found[1]!]! : null;
    }
    case "python": {
      // `max_lock_renewal_duration=60`, or the value alone when it was passed in its position
      const value = match.text.replace(/^max_lock_renewal_duration\s*=/, "").trim();
      if (/^[\d.]+$/.test(value)) return Number(value);
      let total = 0;
      for (const part of value.matchAll(/(days|hours|minutes|seconds|milliseconds)\s*=\s*([\d.]+)/g)) {
        total += Number(part[2]) * { days: 86_400, hours: 3600, minutes: 60, seconds: 1, milliseconds: 0.001 }[part[1] as "days"];
      }
      return total;
    }
    case "yaml":
    case "properties":
      return springDurationSeconds(match.text.slice(match.text.indexOf(":") + 1).trim().replace(/^["']|["']$/g, ""));
    default:
      return null;
  }
}

/** Spring Boot's Duration formats: `500ms`, `30s`, `5m`, `1h`, ISO-8601 `PT5M30S`, or a bare number of milliseconds. */
function springDurationSeconds(value: string): number | null {
  const simple = /^(\d+)(ms|s|m|h)?$/.exec(value);
  if (simple) return Number(simple[1]) * UNIT_SECONDS[simple[2] ?? "ms"]!;
  const iso = /^PT(?:([\d.]+)H)?(?:([\d.]+)M)?(?:([\d.]+)S)?$/i.exec(value);
  if (!iso) return null;
  return Number(iso[1] ?? 0) * 3600 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0);
}
