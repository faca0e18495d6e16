/**
 * Trains the two small linear models the guardrails ship with and writes them as JSON into
 * dataplane/guardrails/models/. Reproducible: fixed feature hashing, fixed split, seeded shuffle.
 *
 * Data sources (the shared development sets, see ../shared/eval/README.md):
 * - injection: deepset/prompt-injections (Apache-2.0) positives and negatives; NotInject (MIT) and
 *   WildGuardTest benign prompts (ODC-BY) as extra negatives.
 * - safety: MLCommons AILuminate demo prompts (CC-BY-4.0), hazard category as the class; the benign
 *   rows of the three sets above as the "benign" class.
 * Rows whose id falls in the held-out bucket (models/training-split.ts) are never trained on; the
 * script also prints 5-fold cross-validated numbers over all rows.
 *
 * Run: npx tsx scripts/train-guardrail-models.ts [--cv]
 */
import { writeFileSync } from "node:fs";
import { storeLinearModel, loadLinearModel, predict } from "../dataplane/guardrails/models/linear-model.js";
import { modelText } from "../dataplane/guardrails/models/model-text.js";
import { isHeldOut, SPLIT_BUCKETS } from "../dataplane/guardrails/models/training-split.js";
import { trainSoftmax, type TrainOptions } from "./train-linear-model.js";
import { crossValidateInjection, crossValidateSafety } from "./train-cross-validate.js";
import { SAFETY_MODEL_CLASSES } from "../dataplane/guardrails/safety/safety-categories.js";
import { injectionExamples, injectionRows, loadCorpus, safetyBenignRows, safetyExamples } from "./train-corpus.js";

const MODELS_DIR = new URL("../dataplane/guardrails/models/", import.meta.url);

const INJECTION_OPTIONS: TrainOptions = { dims: 1 << 14, classes: 2, epochs: 12, learningRate: 0.3, l2: 1e-4, seed: 7 };
const SAFETY_OPTIONS: TrainOptions = { dims: 1 << 13, classes: SAFETY_MODEL_CLASSES.length, epochs: 12, learningRate: 0.3, l2: 1e-4, seed: 11 };

function main(): void {
  const corpus = loadCorpus();
  const today = new Date().toISOString().slice(0, 10);
  if (process.argv.includes("--cv")) {
    crossValidateInjection(corpus, INJECTION_OPTIONS);
    crossValidateSafety(corpus, SAFETY_OPTIONS);
  }
  const injTrain = injectionRows(corpus).filter((r) => !isHeldOut(r.id));
  const inj = trainSoftmax(injectionExamples(injTrain), INJECTION_OPTIONS);
  const injStored = storeLinearModel(
    `prompt-injection classifier, trained ${today} by scripts/train-guardrail-models.ts on ${injTrain.length} rows of deepset/prompt-injections + NotInject + WildGuardTest benign (held-out bucket 0 of ${SPLIT_BUCKETS} excluded)`,
    INJECTION_OPTIONS.dims,
    ["benign", "injection"],
    inj.bias,
    inj.weights,
  );
  writeFileSync(new URL("injection-model.json", MODELS_DIR), JSON.stringify(injStored) + "\n");

  const safeHaz = corpus.ailuminate.filter((r) => !isHeldOut(r.id));
  const safeBen = safetyBenignRows(corpus).filter((r) => !isHeldOut(r.id));
  const safe = trainSoftmax(safetyExamples(safeHaz, safeBen), SAFETY_OPTIONS);
  const safeStored = storeLinearModel(
    `content-safety classifier, trained ${today} by scripts/train-guardrail-models.ts on ${safeHaz.length} AILuminate demo prompts + ${safeBen.length} benign rows (held-out bucket 0 of ${SPLIT_BUCKETS} excluded)`,
    SAFETY_OPTIONS.dims,
    [...SAFETY_MODEL_CLASSES],
    safe.bias,
    safe.weights,
  );
  writeFileSync(new URL("safety-model.json", MODELS_DIR), JSON.stringify(safeStored) + "\n");

  // Sanity check that quantisation kept the ranking: held-out accuracy of the stored injection model.
  const loaded = loadLinearModel(injStored);
  const held = injectionRows(corpus).filter((r) => isHeldOut(r.id));
  const correct = held.filter((r) => (predict(loaded, modelText(r.text))[1]! >= 0.5 ? 1 : 0) === r.label).length;
  console.log(`injection model: held-out accuracy ${(correct / held.length).toFixed(3)} on ${held.length} rows`);
  console.log("wrote models/injection-model.json and models/safety-model.json");
}

main();
