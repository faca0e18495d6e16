/**
 * 5-fold cross-validation of the detectors with their classifier retrained per fold (folds are the
 * split buckets), printing recall, precision and false-positive rates on rows never trained on.
 */
import {
  loadLinearModel,
  storeLinearModel,
  type LinearModel,
} from "../dataplane/guardrails/models/linear-model.js";
import { splitBucket, SPLIT_BUCKETS } from "../dataplane/guardrails/models/training-split.js";
import { scoreInjectionWith } from "../dataplane/guardrails/injection/score-injection.js";
import { scoreSafetyWith } from "../dataplane/guardrails/safety/score-safety.js";
import { SAFETY_CATEGORIES } from "../dataplane/guardrails/safety/safety-categories.js";
import type { DevRow } from "./train-dev-sets.js";
import { trainSoftmax, type TrainOptions } from "./train-linear-model.js";
import {
  categoryExamples,
  hazardExamples,
  injectionExamples,
  injectionRows,
  safetyBenignRows,
  type Corpus,
} from "./train-corpus.js";

function trainFold(
  examplesFor: (rows: DevRow[]) => ReturnType<typeof injectionExamples>,
  rows: DevRow[],
  o: TrainOptions,
  classes: string[],
): LinearModel {
  const t = trainSoftmax(examplesFor(rows), o);
  return loadLinearModel(storeLinearModel("cv", o.dims, classes, t.bias, t.weights));
}

function rate(hits: number, n: number): string {
  return n === 0 ? "n/a" : `${(hits / n).toFixed(3)} (${hits}/${n})`;
}

export function crossValidateInjection(c: Corpus, o: TrainOptions, threshold = 0.5): void {
  const scored = new Map<string, { rules: number; full: number }>();
  for (let k = 0; k < SPLIT_BUCKETS; k++) {
    const train = [...injectionRows(c).filter((r) => splitBucket(r.id) !== k), ...c.handwritten];
    const model = trainFold(injectionExamples, train, o, ["benign", "injection"]);
    for (const r of injectionRows(c).filter((r) => splitBucket(r.id) === k)) {
      scored.set(r.id, {
        rules: scoreInjectionWith(r.text, undefined).score,
        full: scoreInjectionWith(r.text, model).score,
      });
    }
  }
  for (const which of ["rules", "full"] as const) {
    const flag = (r: DevRow): boolean => scored.get(r.id)![which] >= threshold;
    const pos = c.deepset.filter((r) => r.label === 1);
    const neg = c.deepset.filter((r) => r.label === 0);
    const tp = pos.filter(flag).length;
    const fp = neg.filter(flag).length;
    console.log(
      `injection CV [${which}] deepset recall ${rate(tp, pos.length)} precision ${rate(tp, tp + fp)} | FPR deepset-benign ${rate(fp, neg.length)} NotInject ${rate(c.notInject.filter(flag).length, c.notInject.length)} WildGuard ${rate(c.wildguard.filter(flag).length, c.wildguard.length)}`,
    );
  }
}

export function crossValidateSafety(
  c: Corpus,
  hazardOptions: TrainOptions,
  categoryOptions: TrainOptions,
  threshold = 0.5,
): void {
  const benign = safetyBenignRows(c);
  const floors = [0, 0.05, 0.1, 0.15];
  const scored = new Map<string, number[]>();
  for (let k = 0; k < SPLIT_BUCKETS; k++) {
    const haz = c.ailuminate.filter((r) => splitBucket(r.id) !== k);
    const ben = [...benign.filter((r) => splitBucket(r.id) !== k), ...c.handwritten];
    const hazard = trainFold(() => hazardExamples(haz, ben), [], hazardOptions, [
      "benign",
      "hazardous",
    ]);
    const category = trainFold(() => categoryExamples(haz), [], categoryOptions, [
      ...SAFETY_CATEGORIES,
    ]);
    for (const r of [...c.ailuminate, ...benign].filter((r) => splitBucket(r.id) === k)) {
      scored.set(r.id, [
        scoreSafetyWith(r.text, undefined).max,
        ...floors.map((f) => scoreSafetyWith(r.text, { hazard, category }, undefined, f).max),
      ]);
    }
  }
  const variants = ["rules", ...floors.map((f) => `full, floor ${f}`)];
  for (const [v, which] of variants.entries()) {
    const flag = (r: DevRow): boolean => scored.get(r.id)![v]! >= threshold;
    const byHazard = new Map<string, [number, number]>();
    for (const r of c.ailuminate) {
      const h = r.hazard!.startsWith("spc_") ? "spc" : r.hazard!;
      const [hit, n] = byHazard.get(h) ?? [0, 0];
      byHazard.set(h, [hit + (flag(r) ? 1 : 0), n + 1]);
    }
    const per = [...byHazard].map(([h, [hit, n]]) => `${h} ${(hit / n).toFixed(2)}`).join(" ");
    console.log(
      `safety CV [${which}] AILuminate recall ${rate(c.ailuminate.filter(flag).length, c.ailuminate.length)} | FPR benign ${rate(benign.filter(flag).length, benign.length)} (WildGuard ${rate(c.wildguard.filter(flag).length, c.wildguard.length)}) | ${per}`,
    );
  }
}
