/**
 * The safety lexicon's part of a content-safety score: harmful and sensitive terms found in the
 * scan views (signals), and a rule score per category from them and the request's intent shape.
 * Split from score-safety.ts, which combines these with the classifier.
 */
import { B, E, rx } from "../injection/injection-pattern.js";
import type { ScanView } from "../normalize/scan-views.js";
import {
  anchored,
  anchoredMatches,
  mayMatch,
  wordIndex,
  type AnchoredRegex,
} from "../normalize/word-anchors.js";
import { SAFETY_CATEGORIES, type SafetyCategory } from "./safety-categories.js";
import type { IntentShape } from "./safety-intent.js";
import { SAFETY_LEXICON } from "./safety-lexicon.js";

export interface SafetySignal {
  label: SafetyCategory;
  start: number;
  end: number;
  weight: number;
}

const STRONG_WEIGHT = 0.45;
const TOPIC_WEIGHT = 0.2;
const EVASION_WEIGHT = 0.45;
const MAX_MATCHES = 4;

function compile(terms: string[]): AnchoredRegex {
  return anchored(rx(B, "(?:", terms.join("|"), ")", E));
}

const COMPILED = SAFETY_CATEGORIES.map((category) => {
  const strong = compile(SAFETY_LEXICON[category].strong);
  const topic = compile(SAFETY_LEXICON[category].topic);
  return {
    category,
    strong,
    topic,
    /** Strong terms first, then topic terms, each with its weight. */
    lists: [
      [strong, STRONG_WEIGHT],
      [topic, TOPIC_WEIGHT],
    ] as const,
  };
});

export const ZERO_SCORES = Object.fromEntries(SAFETY_CATEGORIES.map((c) => [c, 0])) as Record<
  SafetyCategory,
  number
>;

export function emptyScores(): Record<SafetyCategory, number> {
  return { ...ZERO_SCORES };
}

/**
 * The lexicon's work sets, shared by every call (none is kept past one: `lexiconSignals` empties
 * both when it starts, `scoreSafetyWith` empties `matchedTexts` when done with it). Most texts
 * match no term: creating the two per call cost more than the rest of a short text's lexicon scan.
 */
const seen = new Set<string>();
export const matchedTexts = new Map<SafetySignal, string>();

export function lexiconSignals(
  views: ScanView[],
  texts: Map<SafetySignal, string>,
): SafetySignal[] {
  const signals: SafetySignal[] = [];
  if (seen.size > 0) seen.clear();
  if (texts.size > 0) texts.clear();
  for (const view of views) {
    const index = wordIndex(view.text, view);
    for (const { category, lists } of COMPILED) {
      for (const [matcher, weight] of lists) {
        if (!mayMatch(matcher, index)) continue;
        for (const m of anchoredMatches(matcher, view.text, index, MAX_MATCHES)) {
          const span = view.spanInInput(m.index, m.index + m[0].length);
          const key = `${category}:${span.start}`;
          if (!seen.has(key)) {
            seen.add(key);
            const signal = { label: category, ...span, weight };
            signals.push(signal);
            texts.set(signal, m[0]);
          }
        }
      }
    }
  }
  return signals;
}

/**
 * Rule score per category. A strong term alone scores STRONG_WEIGHT, raised by a request and
 * lowered by a protective frame; topic terms (distinct ones, at most two counted) stay below any
 * sensible threshold unless the text also asks to do it unseen (evasion).
 */
export function ruleScores(
  signals: SafetySignal[],
  texts: Map<SafetySignal, string>,
  intent: IntentShape,
): Record<SafetyCategory, number> {
  const scores = emptyScores();
  for (const category of SAFETY_CATEGORIES) {
    const mine = signals.filter((s) => s.label === category);
    if (mine.length === 0) continue;
    const strongTerms = new Set(
      mine.filter((s) => s.weight === STRONG_WEIGHT).map((s) => texts.get(s)),
    ).size;
    const strong = strongTerms > 0;
    const topics = new Set(mine.filter((s) => s.weight === TOPIC_WEIGHT).map((s) => texts.get(s)))
      .size;
    let score = strong
      ? 1 - (1 - STRONG_WEIGHT) ** Math.min(strongTerms, 2)
      : Math.min(topics, 2) * 0.12;
    if (intent.protective && !intent.evasion) score *= 0.5;
    else if (intent.request) score = strong ? Math.max(score, 0.72) : score + 0.06;
    if (intent.evasion) score = 1 - (1 - score) * (1 - EVASION_WEIGHT);
    scores[category] = score;
  }
  return scores;
}
