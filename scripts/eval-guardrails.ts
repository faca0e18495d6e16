/**
 * Measures the built-in guardrails on the shared development sets (../shared/eval beside the repo,
 * or EVAL_DIR) and prints one table per detector. Rows in the held-out split (never trained on)
 * are reported separately: those are the honest numbers for the trained classifiers.
 *
 * Run: npm run eval:guardrails   (or: EVAL_DIR=/path npx tsx scripts/eval-guardrails.ts)
 */
import { resolve } from "node:path";
import { scoreInjection } from "../dataplane/guardrails/injection/score-injection.js";
import { DEFAULT_INJECTION_THRESHOLD } from "../dataplane/guardrails/injection/injection-verdict.js";
import { scoreSafety } from "../dataplane/guardrails/safety/score-safety.js";
import { DEFAULT_SAFETY_THRESHOLD } from "../dataplane/guardrails/safety/safety-verdict.js";
import { isHeldOut } from "../dataplane/guardrails/models/training-split.js";
import { DEV_FILES, evalDir, loadDevSet, type DevRow } from "./train-dev-sets.js";
import { evaluatePii } from "./eval/pii-eval.js";

interface Row {
  name: string;
  rows: number;
  flagged: number;
  precision: string;
  recall: string;
  fpr: string;
}

const pct = (n: number, d: number): string => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);

function table(rows: Row[]): string {
  const header = ["set", "rows", "flagged", "precision", "recall", "FPR"];
  const body = rows.map((r) => [
    r.name,
    String(r.rows),
    String(r.flagged),
    r.precision,
    r.recall,
    r.fpr,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), ...body.map(line)].join("\n");
}

/** A labelled set: precision and recall over its positives, FPR over its negatives. */
function measure(name: string, rows: DevRow[], flagged: (r: DevRow) => boolean): Row {
  const hits = rows.filter(flagged);
  const tp = hits.filter((r) => r.label === 1).length;
  const positives = rows.filter((r) => r.label === 1).length;
  const negatives = rows.length - positives;
  return {
    name,
    rows: rows.length,
    flagged: hits.length,
    precision: positives === 0 ? "-" : pct(tp, hits.length),
    recall: positives === 0 ? "-" : pct(tp, positives),
    fpr: negatives === 0 ? "-" : pct(hits.length - tp, negatives),
  };
}

function both(name: string, rows: DevRow[], flagged: (r: DevRow) => boolean): Row[] {
  return [
    measure(`${name} (all)`, rows, flagged),
    measure(
      `${name} (held-out split)`,
      rows.filter((r) => isHeldOut(r.id)),
      flagged,
    ),
  ];
}

function main(): void {
  console.log(`eval sets: ${evalDir()}`);
  console.log(
    '"all" rows include rows the classifiers were trained on; "held-out split" rows were not.\n' +
      "5-fold cross-validated numbers: npx tsx scripts/train-guardrail-models.ts --cv\n",
  );
  const deepset = loadDevSet(DEV_FILES.deepset);
  const notInject = loadDevSet(DEV_FILES.notInject);
  const wildguard = loadDevSet(DEV_FILES.wildguardBenign);
  const ailuminate = loadDevSet(DEV_FILES.ailuminate);

  const injScores = new Map<string, number>();
  for (const r of [...deepset, ...notInject, ...wildguard])
    injScores.set(r.id, scoreInjection(r.text).score);
  const injFlag = (r: DevRow): boolean => injScores.get(r.id)! >= DEFAULT_INJECTION_THRESHOLD;
  console.log(
    `Prompt injection (threshold ${DEFAULT_INJECTION_THRESHOLD}); targets: deepset recall >= 70%, FPR <= 2% on NotInject and WildGuard benign`,
  );
  console.log(
    table([
      ...both("deepset", deepset, injFlag),
      ...both("NotInject", notInject, injFlag),
      ...both("WildGuard benign", wildguard, injFlag),
    ]),
  );

  const safetyBenign = [...wildguard, ...notInject, ...deepset.filter((r) => r.label === 0)];
  const safeScores = new Map<string, number>();
  for (const r of [...ailuminate, ...safetyBenign]) safeScores.set(r.id, scoreSafety(r.text).max);
  const safeFlag = (r: DevRow): boolean => safeScores.get(r.id)! >= DEFAULT_SAFETY_THRESHOLD;
  console.log(
    `\nContent safety (threshold ${DEFAULT_SAFETY_THRESHOLD}); targets: AILuminate recall >= 80%, FPR <= 5% on the benign sets`,
  );
  const hazards = [...new Set(ailuminate.map((r) => r.hazard ?? "?"))].sort();
  console.log(
    table([
      ...both("AILuminate", ailuminate, safeFlag),
      ...hazards.map((h) =>
        measure(
          `  AILuminate ${h}`,
          ailuminate.filter((r) => r.hazard === h),
          safeFlag,
        ),
      ),
      ...both("benign: WildGuard+NotInject+deepset", safetyBenign, safeFlag),
      measure("  WildGuard benign", wildguard, safeFlag),
      measure("  NotInject", notInject, safeFlag),
      measure(
        "  deepset benign rows",
        deepset.filter((r) => r.label === 0),
        safeFlag,
      ),
    ]),
  );

  // The same sets judged as a model's answer (output policy; see score-safety.ts SafetySubject):
  // hazardous prompts stand in for answers here, for want of a labelled set of answers.
  const answerScores = new Map<string, number>();
  for (const r of [...ailuminate, ...safetyBenign])
    answerScores.set(r.id, scoreSafety(r.text, undefined, undefined, "answer").max);
  const answerFlag = (r: DevRow): boolean => answerScores.get(r.id)! >= DEFAULT_SAFETY_THRESHOLD;
  console.log("\nContent safety judged as answers (output policy), same sets");
  console.log(
    table([
      ...both("AILuminate as answers", ailuminate, answerFlag),
      ...both("benign as answers", safetyBenign, answerFlag),
    ]),
  );

  console.log(`\nPII (span-level, ${DEV_FILES.pii})`);
  console.log(evaluatePii(resolve(evalDir(), DEV_FILES.pii)).table);
}

main();
