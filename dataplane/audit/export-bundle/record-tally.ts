import type { ChainedRecord } from "../verify-chain.js";

/** Distinct values kept per counter; the rest are counted under OTHER so memory stays bounded. */
const MAX_KEYS = 200;
export const OTHER = "(other)";

/** Counts by a string key, capped at MAX_KEYS distinct keys. */
export class CappedCounter {
  readonly #counts = new Map<string, number>();

  add(key: string): void {
    const k = this.#counts.has(key) || this.#counts.size < MAX_KEYS ? key : OTHER;
    this.#counts.set(k, (this.#counts.get(k) ?? 0) + 1);
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries(
      [...this.#counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
}

/** What controls.json counts, gathered one record at a time while the records are streamed. */
export class RecordTally {
  records = 0;
  tombstones = 0;
  inference = 0;
  management = 0;
  with_key_id = 0;
  with_body_digests = 0;
  with_classification = 0;
  with_verdicts = 0;
  guardrail_blocked = 0;
  guardrail_flagged = 0;
  rate_limited = 0;
  server_errors = 0;
  client_errors = 0;
  readonly outcomes = new CappedCounter();
  readonly error_codes = new CappedCounter();
  readonly checks = new CappedCounter();
  readonly management_actions = new CappedCounter();

  add(record: ChainedRecord): void {
    this.records += 1;
    const f = record.fields;
    if (f === null) {
      this.tombstones += 1;
      return;
    }
    if (f.key_id !== null) this.with_key_id += 1;
    if (f.kind === "management") {
      this.management += 1;
      this.management_actions.add(f.action);
      return;
    }
    this.inference += 1;
    if (f.request_sha256 !== null && f.response_sha256 !== null) this.with_body_digests += 1;
    if (f.classification !== null) this.with_classification += 1;
    if (f.outcome !== null) this.outcomes.add(f.outcome);
    if (f.error_code !== null) this.error_codes.add(f.error_code);
    if (f.status === 429) this.rate_limited += 1;
    if (f.status !== null && f.status >= 500) this.server_errors += 1;
    if (f.status !== null && f.status >= 400 && f.status < 500) this.client_errors += 1;
    if (f.verdicts.length > 0) this.with_verdicts += 1;
    for (const v of f.verdicts) this.checks.add(v.check);
    if (f.verdicts.some((v) => v.action === "block")) this.guardrail_blocked += 1;
    else if (f.verdicts.some((v) => v.action === "flag" || v.action === "redact"))
      this.guardrail_flagged += 1;
  }

  /** Management actions whose name starts with one of the prefixes ("key." ...). */
  managementCount(prefixes: readonly string[]): number {
    let n = 0;
    for (const [action, count] of Object.entries(this.management_actions.toJSON())) {
      if (prefixes.some((p) => action.startsWith(p))) n += count;
    }
    return n;
  }
}
