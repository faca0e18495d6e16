/**
 * Content-safety scores per category in [0, 1]: a lexicon of harmful and sensitive terms, weighed
 * by the shape of the request (asking how to do it, doing it unseen, or discussing/preventing
 * it), combined by noisy-OR with the small hashed n-gram classifier. Pure and linear in the input.
 */
import { buildScanViews, wordCount, type ScanView } from "../normalize/scan-views.js";
import { maskedModelText } from "../normalize/masked-model-text.js";
import { detectPii } from "../pii/detect.js";
import type { PiiEntity } from "../pii/entities.js";
import { predictShared, type LinearModel } from "../models/linear-model.js";
import { MAX_MODEL_DIMS, scanFeatureCounts } from "../models/model-text.js";
import { sharedFeatureCounts, type BucketCounts } from "../models/hashed-features.js";
import { SAFETY_CATEGORIES, type SafetyCategory } from "./safety-categories.js";
import {
  emptyScores,
  lexiconSignals,
  matchedTexts,
  ruleScores,
  ZERO_SCORES,
  type SafetySignal,
} from "./safety-lexicon-scores.js";
import { intentShape, type IntentShape } from "./safety-intent.js";
import { SAFETY_MODELS } from "./safety-model.js";

export type { SafetySignal } from "./safety-lexicon-scores.js";

export interface SafetyScore {
  scores: Record<SafetyCategory, number>;
  /** The highest category score. */
  max: number;
  signals: SafetySignal[];
}

/** Classifier probability below this adds nothing; above, it rises linearly to 1. */
export const SAFETY_CLASSIFIER_FLOOR = 0.05;

/** The intent shape over every view: a request or evasion in any, protective only in all. */
function combinedIntent(views: ScanView[]): IntentShape {
  let intent = intentShape(views[0]);
  for (let k = 1; k < views.length; k++) {
    const i = intentShape(views[k]);
    intent = {
      request: intent.request || i.request,
      evasion: intent.evasion || i.evasion,
      protective: intent.protective && i.protective,
    };
  }
  return intent;
}

/** The two classifiers: hazardous-or-not, and which category a hazardous text belongs to. */
export interface SafetyModels {
  hazard: LinearModel;
  category: LinearModel;
}

/**
 * What is judged: a request (a prompt; what the classifiers were trained on) or a model's answer.
 * On an answer the hazard classifier reads out of its training distribution: ordinary narrative
 * prose (a story, a memoir, advice on sleep) can get a hazard probability of 0.5-0.85, and with the
 * category model spread almost evenly over the twelve categories (top share about 0.2) all of it
 * went to whichever category was marginally on top, often self_harm. So on an answer the
 * classifier counts in full only when the text corroborates it (a lexicon term of any category or
 * an evasion shape; not a request shape: "tell", "show me" are ordinary words in an answer);
 * otherwise its score is scaled by how sure the category model is (top share /
 * ANSWER_CATEGORY_CONFIDENCE, at most 1). Requests are scored as before.
 */
export type SafetySubject = "request" | "answer";
export const ANSWER_CATEGORY_CONFIDENCE = 0.5;

/**
 * Classifier score per category: the hazard probability, shared out relative to the top category.
 * Scaled by `evidence` (below 1 on short texts: see evidenceOf). Below the floor it is ZERO_SCORES
 * itself (read only).
 */
function classifierScores(
  models: SafetyModels,
  counts: BucketCounts,
  floor: number,
  uncorroboratedAnswer = false,
  evidence = 1,
): Record<SafetyCategory, number> {
  const hazard = predictShared(models.hazard, counts)[1]!;
  // Below the floor no category can score: skip the category model (most texts end here).
  if (hazard <= floor) return ZERO_SCORES;
  const q = predictShared(models.category, counts);
  let top = 0;
  for (const v of q) top = Math.max(top, v);
  const scores = emptyScores();
  const confidence = uncorroboratedAnswer ? Math.min(1, top / ANSWER_CATEGORY_CONFIDENCE) : 1;
  for (let i = 0; i < SAFETY_CATEGORIES.length; i++) {
    const m = hazard * (q[i]! / (top || 1)) * confidence;
    const score = Math.max(0, (m - floor) / (1 - floor));
    // Scaled by the evidence here (the same product as scaling the stored score afterwards).
    scores[SAFETY_CATEGORIES[i]!] = evidence < 1 ? score * evidence : score;
  }
  return scores;
}

/**
 * Words of text before the classifiers' opinion counts in full: a bag-of-features model has little
 * evidence on a few words, so its scores are scaled down on short texts (the lexicon and intent
 * rules still apply in full).
 */
export const SAFETY_FULL_EVIDENCE_WORDS = 8;

/** Identifiers the classifiers must not judge by: what a text asks, not whom it names. */
export const IDENTIFIERS: readonly PiiEntity[] = [
  "EMAIL_ADDRESS",
  "PHONE_NUMBER",
  "IP_ADDRESS",
  "CREDIT_CARD",
  "IBAN_CODE",
  "US_SSN",
];

/** A span of an identifier found in the text (e.g. by the PII detectors, already run). */
export interface IdentifierSpan {
  start: number;
  end: number;
  entity_type: PiiEntity;
}

/**
 * The features the classifiers read: those of the text with identifiers replaced by neutral
 * placeholders. `known` are identifiers already found (sorted, non-overlapping); else they are
 * detected here. Only the model text of the masked text is built (not its other scan views). The
 * counts are in shared buffers (see sharedFeatureCounts): read them before counting another text.
 */
function classifierCounts(
  text: string,
  views: ScanView[],
  known: readonly IdentifierSpan[] | undefined,
): BucketCounts {
  const candidates = known ?? detectPii(text, { entities: IDENTIFIERS });
  // Most texts name no identifier: then no filtered list is made.
  if (!candidates.some(isIdentifier)) return scanFeatureCounts(views);
  const found = candidates.filter(isIdentifier);
  const spans = found.map((m) => ({
    start: m.start,
    end: m.end,
    placeholder: `[${m.entity_type}]`,
  }));
  return sharedFeatureCounts(maskedModelText(text, views[0], spans), MAX_MODEL_DIMS);
}

function isIdentifier(m: IdentifierSpan): boolean {
  return IDENTIFIERS.includes(m.entity_type);
}

function evidenceOf(views: ScanView[]): number {
  const words = wordCount(views[0]);
  return Math.min(1, words / SAFETY_FULL_EVIDENCE_WORDS);
}

/**
 * Score with explicit classifiers (or none) and classifier floor; `scoreSafety` uses the bundled
 * ones. (The training script varies both to cross-validate.)
 */
export function scoreSafetyWith(
  text: string,
  models: SafetyModels | undefined,
  views = buildScanViews(text),
  floor = SAFETY_CLASSIFIER_FLOOR,
  identifiers?: readonly IdentifierSpan[],
  subject: SafetySubject = "request",
): SafetyScore {
  const matched = matchedTexts;
  const signals = lexiconSignals(views, matched);
  // The intent weighs lexicon terms, and on an answer without any tells whether it is evasive;
  // otherwise it changes nothing and is not worked out.
  const intent = signals.length > 0 || subject === "answer" ? combinedIntent(views) : undefined;
  // ZERO_SCORES stands (read only) for no rule score and for no classifier.
  const rules =
    intent === undefined || signals.length === 0
      ? ZERO_SCORES
      : ruleScores(signals, matched, intent);
  if (matched.size > 0) matched.clear();
  const uncorroborated =
    subject === "answer" && signals.length === 0 && intent !== undefined && !intent.evasion;
  const learned =
    models === undefined
      ? ZERO_SCORES
      : classifierScores(
          models,
          classifierCounts(text, views, identifiers),
          floor,
          uncorroborated,
          evidenceOf(views),
        );
  // Neither scores (no lexicon term, classifier below its floor): every category is 0, as the
  // loop below would make it. (Without a lexicon term there are no signals to sort.)
  if (rules === ZERO_SCORES && learned === ZERO_SCORES)
    return { scores: emptyScores(), max: 0, signals };
  const scores = emptyScores();
  let max = 0;
  // ZERO_SCORES holds 0 for every category: not read.
  const noRules = rules === ZERO_SCORES;
  const unlearned = learned === ZERO_SCORES;
  for (const c of SAFETY_CATEGORIES) {
    const r = noRules ? 0 : rules[c];
    const l = unlearned ? 0 : learned[c];
    const score = Math.round((1 - (1 - r) * (1 - l)) * 10000) / 10000;
    scores[c] = score;
    max = Math.max(max, score);
  }
  signals.sort((a, b) => a.start - b.start);
  return { scores, max, signals };
}

export function scoreSafety(
  text: string,
  views?: ScanView[],
  identifiers?: readonly IdentifierSpan[],
  subject: SafetySubject = "request",
): SafetyScore {
  return scoreSafetyWith(
    text,
    SAFETY_MODELS,
    views ?? buildScanViews(text),
    undefined,
    identifiers,
    subject,
  );
}
