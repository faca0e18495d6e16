import type { Evidence } from "../verdict.js";
import type { PiiMatch } from "./entities.js";

/** Evidence for a verdict: entity label, span and score only, never the matched value. */
export function piiEvidence(matches: readonly PiiMatch[]): Evidence[] {
  return matches.map((m) => ({ label: m.entity_type, start: m.start, end: m.end, score: m.score }));
}
