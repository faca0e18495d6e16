/**
 * Prompt-injection score in [0, 1]: structural patterns run over every scan view (folded,
 * leetspeak, spelled-out, decoded payloads), combined by noisy-OR across families, then with the
 * small hashed n-gram classifier. Pure and bounded: linear in the (capped) input.
 */
import { buildScanViews, wordCount, type ScanView } from "../normalize/scan-views.js";
import { predict, predictShared, type LinearModel } from "../models/linear-model.js";
import { scanFeatureCounts } from "../models/model-text.js";
import { anchored, anchoredMatches, mayMatch, wordIndex } from "../normalize/word-anchors.js";
import { INJECTION_PATTERNS } from "./injection-patterns.js";
import { INJECTION_MODEL } from "./injection-model.js";

export interface InjectionSignal {
  label: string;
  start: number;
  end: number;
  weight: number;
}

export interface InjectionScore {
  score: number;
  signals: InjectionSignal[];
}

const MAX_MATCHES_PER_PATTERN = 4;
const ENCODED_VIEWS = new Set(["base64", "hex", "rot13", "unicode_tags"]);
/** Classifier probability below this adds nothing; above, it rises linearly to 1. */
export const CLASSIFIER_FLOOR = 0.4;

const COMPILED = INJECTION_PATTERNS.map((p) => ({ ...p, matcher: anchored(p.regex) }));

function patternSignals(views: ScanView[]): InjectionSignal[] {
  // Made on the first match (most texts match no pattern).
  let byKey: Map<string, InjectionSignal> | undefined;
  let encodedHit: InjectionSignal | undefined;
  for (const view of views) {
    const encoded = ENCODED_VIEWS.has(view.kind);
    const index = wordIndex(view.text, view);
    for (const p of COMPILED) {
      if (!mayMatch(p.matcher, index)) continue;
      for (const m of anchoredMatches(p.matcher, view.text, index, MAX_MATCHES_PER_PATTERN)) {
        const span = view.spanInInput(m.index, m.index + m[0].length);
        const key = `${p.label}:${span.start}:${span.end}`;
        byKey ??= new Map<string, InjectionSignal>();
        const prev = byKey.get(key);
        if (prev === undefined || prev.weight < p.weight)
          byKey.set(key, { label: p.label, ...span, weight: p.weight });
        if (encoded && encodedHit === undefined)
          encodedHit = { label: `encoded_${view.kind}`, ...span, weight: 0.3 };
      }
    }
  }
  const signals = byKey === undefined ? [] : [...byKey.values()];
  if (encodedHit !== undefined) signals.push(encodedHit);
  return signals;
}

/** Noisy-OR over families: each family counts once, with its strongest signal. */
export function combineSignals(signals: InjectionSignal[]): number {
  // No signal, or one: no families to sort out (the same arithmetic as below).
  if (signals.length === 0) return 0;
  if (signals.length === 1) return 1 - (1 - Math.max(0, signals[0]!.weight));
  const best = new Map<string, number>();
  for (const s of signals) best.set(s.label, Math.max(best.get(s.label) ?? 0, s.weight));
  let keep = 1;
  for (const w of best.values()) keep *= 1 - w;
  return 1 - keep;
}

/**
 * Words of text before the classifier's opinion counts in full. A bag-of-features model has
 * little evidence on a few words ("say hello"), so its weight is scaled down on short texts;
 * short injections are caught by the structural patterns instead.
 */
export const CLASSIFIER_FULL_EVIDENCE_WORDS = 8;

function classifierWeight(model: LinearModel, views: ScanView[]): number {
  let p = predictShared(model, scanFeatureCounts(views))[1]!;
  for (const v of views) if (ENCODED_VIEWS.has(v.kind)) p = Math.max(p, predict(model, v.text)[1]!);
  const words = wordCount(views[0]);
  const evidence = Math.min(1, words / CLASSIFIER_FULL_EVIDENCE_WORDS);
  return evidence * Math.max(0, (p - CLASSIFIER_FLOOR) / (1 - CLASSIFIER_FLOOR));
}

/** Score with an explicit model (or none); `scoreInjection` uses the bundled one. */
export function scoreInjectionWith(
  text: string,
  model: LinearModel | undefined,
  views = buildScanViews(text),
): InjectionScore {
  const signals = patternSignals(views);
  if (model !== undefined) {
    const w = classifierWeight(model, views);
    if (w > 0)
      signals.push({
        label: "classifier",
        start: 0,
        end: text.length,
        weight: Math.round(w * 1000) / 1000,
      });
  }
  signals.sort((a, b) => a.start - b.start || b.weight - a.weight);
  return { score: Math.round(combineSignals(signals) * 10000) / 10000, signals };
}

export function scoreInjection(text: string, views?: ScanView[]): InjectionScore {
  return scoreInjectionWith(text, INJECTION_MODEL, views);
}
