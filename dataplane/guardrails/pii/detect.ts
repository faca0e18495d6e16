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
  // Most texts have no candidate, or one: nothing to rank.
  if (candidates.length === 0) return [];
  if (candidates.length === 1) {
    const only = candidates[0]!;
    return only.end > only.start ? [only] : [];
  }
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

/** The entity types asked for and the detectors that can find any of them. */
interface DetectionPlan {
  entities: readonly PiiEntity[];
  wanted: ReadonlySet<PiiEntity>;
  detectors: readonly PiiDetector[];
}

function planFor(entities: readonly PiiEntity[]): DetectionPlan {
  const wanted = new Set(entities);
  const detectors = DETECTORS.filter((d) => d.entities.some((entity) => wanted.has(entity)));
  return { entities, wanted, detectors };
}

/**
 * The plans of the last few entity lists asked for, by identity: callers pass the same constant
 * lists (PII_ENTITIES, the safety check's IDENTIFIERS), so the set and the detector list are not
 * made again per call. The entity list must not be changed after it is passed.
 */
const recentPlans: DetectionPlan[] = [];
const RECENT_PLANS = 4;

function planOf(entities: readonly PiiEntity[]): DetectionPlan {
  for (const plan of recentPlans) if (plan.entities === entities) return plan;
  const plan = planFor(entities);
  if (recentPlans.length === RECENT_PLANS) recentPlans.pop();
  recentPlans.unshift(plan);
  return plan;
}

const NO_OPTIONS: DetectPiiOptions = Object.freeze({});

/** Finds PII in `text`. Pure; offsets are UTF-16 code units; matches never overlap. */
export function detectPii(text: string, options: DetectPiiOptions = NO_OPTIONS): PiiMatch[] {
  const { wanted, detectors } = planOf(options.entities ?? PII_ENTITIES);
  const candidates: PiiMatch[] = [];
  for (const detector of detectors)
    for (const match of detector.find(text))
      if (wanted.has(match.entity_type)) candidates.push(match);
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
  const { wanted } = planOf(entities);
  return resolveOverlaps(candidates.filter((match) => wanted.has(match.entity_type)));
}
