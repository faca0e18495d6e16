import { emailDetector } from "./email.js";
import { PII_ENTITIES, type PiiDetector, type PiiEntity, type PiiMatch } from "./entities.js";
import { ibanDetector } from "./iban.js";
import { ipAddressDetector } from "./ip-address.js";
import { paymentCardDetector } from "./payment-card.js";
import { personNameDetector } from "./person-name.js";
import { phoneDetector } from "./phone.js";
import { secretsDetector } from "./secrets.js";
import { streetAddressDetector } from "./street-address.js";
import { usDriverLicenseDetector } from "./us-driver-license.js";
import { usSsnDetector } from "./us-ssn.js";

export type { PiiEntity, PiiMatch } from "./entities.js";

const DETECTORS: readonly PiiDetector[] = [
  secretsDetector,
  emailDetector,
  ibanDetector,
  paymentCardDetector,
  usSsnDetector,
  ipAddressDetector,
  phoneDetector,
  usDriverLicenseDetector,
  streetAddressDetector,
  personNameDetector,
];

export interface DetectPiiOptions {
  /** Which entity types to look for; all of PII_ENTITIES when absent. */
  entities?: readonly PiiEntity[];
}

/**
 * Keeps the best of overlapping candidates: higher score first, then the longer span, then the
 * earlier one. The result does not overlap and is sorted by start.
 */
export function resolveOverlaps(candidates: readonly PiiMatch[]): PiiMatch[] {
  const ranked = [...candidates].sort(
    (a, b) => b.score - a.score || b.end - b.start - (a.end - a.start) || a.start - b.start,
  );
  // `kept` stays sorted by start and non-overlapping, so one binary search finds the neighbours.
  const kept: PiiMatch[] = [];
  for (const candidate of ranked) {
    if (candidate.end <= candidate.start) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((kept[mid]?.start ?? 0) < candidate.start) lo = mid + 1;
      else hi = mid;
    }
    const before = kept[lo - 1];
    const after = kept[lo];
    if (before !== undefined && before.end > candidate.start) continue;
    if (after !== undefined && after.start < candidate.end) continue;
    kept.splice(lo, 0, candidate);
  }
  return kept;
}

/** Finds PII in `text`. Pure; offsets are UTF-16 code units; matches never overlap. */
export function detectPii(text: string, options: DetectPiiOptions = {}): PiiMatch[] {
  const wanted = new Set(options.entities ?? PII_ENTITIES);
  const candidates: PiiMatch[] = [];
  for (const detector of DETECTORS) {
    if (!detector.entities.some((entity) => wanted.has(entity))) continue;
    for (const match of detector.find(text))
      if (wanted.has(match.entity_type)) candidates.push(match);
  }
  return resolveOverlaps(candidates);
}

/**
 * Every detector's candidates for `text`, overlaps not yet resolved: with piiFromCandidates, the two
 * halves of detectPii, for a caller that needs the PII of one text for several sets of entities.
 */
export function piiCandidates(text: string): PiiMatch[] {
  const candidates: PiiMatch[] = [];
  for (const detector of DETECTORS) for (const match of detector.find(text)) candidates.push(match);
  return candidates;
}

/** detectPii(text, { entities }), from piiCandidates(text). */
export function piiFromCandidates(
  candidates: readonly PiiMatch[],
  entities: readonly PiiEntity[] = PII_ENTITIES,
): PiiMatch[] {
  if (entities === PII_ENTITIES) return resolveOverlaps(candidates);
  const wanted = new Set(entities);
  return resolveOverlaps(candidates.filter((match) => wanted.has(match.entity_type)));
}
