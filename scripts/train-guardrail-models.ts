/**
 * Trains the two small linear models the guardrails ship with and writes them as JSON into
 * dataplane/guardrails/models/. Reproducible: fixed feature hashing, fixed split, seeded shuffle.
 *
 * Data sources (the shared development sets, see ../shared/eval/README.md):
 * - injection: deepset/prompt-injections (Apache-2.0) positives and negatives; NotInject (MIT) and
 *   WildGuardTest benign prompts (ODC-BY) as extra negatives.
 * - safety: MLCommons AILuminate demo prompts (CC-BY-4.0) as hazardous, the benign rows of the three
 *   sets above as benign (hazard model); AILuminate hazard codes as the classes (category model).
 * - both: models/training/benign-sensitive-topics.txt, benign prompts on sensitive topics written
 *   for this project, as extra negatives (always trained on, never scored).
 * Rows whose id falls in the held-out bucket (models/training-split.ts) are never trained on; the
 * script also prints 5-fold cross-validated numbers over all rows.
 *
 * Run: npx tsx scripts/train-guardrail-models.ts [--cv]
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import {
  storeLinearModel,
  loadLinearModel,
  predict,
} from "../dataplane/guardrails/models/linear-model.js";
import { modelText } from "../dataplane/guardrails/models/model-text.js";
import { isHeldOut, SPLIT_BUCKETS } from "../dataplane/guardrails/models/training-split.js";
import { trainSoftmax, type TrainOptions } from "./train-linear-model.js";
import { crossValidateInjection, crossValidateSafety } from "./train-cross-validate.js";
import { SAFETY_CATEGORIES } from "../dataplane/guardrails/safety/safety-categories.js";
import {
  categoryExamples,
  hazardExamples,
  injectionExamples,
  injectionRows,
  loadCorpus,
  safetyBenignRows,
} from "./train-corpus.js";

const MODELS_DIR = new URL("../dataplane/guardrails/models/", import.meta.url);

const INJECTION_OPTIONS: TrainOptions = {
  dims: 1 << 14,
  classes: 2,
  epochs: 12,
  learningRate: 0.3,
  l2: 1e-4,
  seed: 7,
};
const HAZARD_OPTIONS: TrainOptions = {
  dims: 1 << 16,
  classes: 2,
  epochs: 8,
  learningRate: 0.5,
  l2: 1e-3,
  seed: 11,
};
const CATEGORY_OPTIONS: TrainOptions = {
  dims: 1 << 12,
  classes: SAFETY_CATEGORIES.length,
  epochs: 12,
  learningRate: 0.3,
  l2: 1e-4,
  seed: 13,
};

/** Writes a model as JSON formatted the way the repository's prettier check expects. */
async function writeModel(name: string, model: object): Promise<void> {
  const url = new URL(name, MODELS_DIR);
  const filepath = fileURLToPath(url);
  const options = (await resolveConfig(filepath)) ?? {};
  writeFileSync(url, await format(JSON.stringify(model), { ...options, filepath }));
}

async function main(): Promise<void> {
  const corpus = loadCorpus();
  const today = new Date().toISOString().slice(0, 10);
  if (process.argv.includes("--cv")) {
    if (!process.argv.includes("--safety")) crossValidateInjection(corpus, INJECTION_OPTIONS);
    crossValidateSafety(corpus, HAZARD_OPTIONS, CATEGORY_OPTIONS);
  }
  const injTrain = [
    ...injectionRows(corpus).filter((r) => !isHeldOut(r.id)),
    ...corpus.handwritten,
  ];
  const inj = trainSoftmax(injectionExamples(injTrain), INJECTION_OPTIONS);
  const injStored = storeLinearModel(
    `prompt-injection classifier, trained ${today} by scripts/train-guardrail-models.ts on ${injTrain.length} rows of deepset/prompt-injections + NotInject + WildGuardTest benign + hand-written benign prompts (held-out bucket 0 of ${SPLIT_BUCKETS} excluded)`,
    INJECTION_OPTIONS.dims,
    ["benign", "injection"],
    inj.bias,
    inj.weights,
  );
  await writeModel("injection-model.json", injStored);

  const safeHaz = corpus.ailuminate.filter((r) => !isHeldOut(r.id));
  const safeBen = [
    ...safetyBenignRows(corpus).filter((r) => !isHeldOut(r.id)),
    ...corpus.handwritten,
  ];
  const hazard = trainSoftmax(hazardExamples(safeHaz, safeBen), HAZARD_OPTIONS);
  const hazardStored = storeLinearModel(
    `content-safety hazard classifier, trained ${today} by scripts/train-guardrail-models.ts on ${safeHaz.length} AILuminate demo prompts + ${safeBen.length} benign rows of deepset, NotInject, WildGuardTest and hand-written prompts (held-out bucket 0 of ${SPLIT_BUCKETS} excluded)`,
    HAZARD_OPTIONS.dims,
    ["benign", "hazardous"],
    hazard.bias,
    hazard.weights,
  );
  await writeModel("safety-hazard-model.json", hazardStored);
  const category = trainSoftmax(categoryExamples(safeHaz), CATEGORY_OPTIONS);
  const categoryStored = storeLinearModel(
    `content-safety category classifier, trained ${today} by scripts/train-guardrail-models.ts on ${safeHaz.length} AILuminate demo prompts labelled by hazard (held-out bucket 0 of ${SPLIT_BUCKETS} excluded)`,
    CATEGORY_OPTIONS.dims,
    [...SAFETY_CATEGORIES],
    category.bias,
    category.weights,
  );
  await writeModel("safety-category-model.json", categoryStored);

  // Sanity check that quantisation kept the ranking: held-out accuracy of the stored injection model.
  const loaded = loadLinearModel(injStored);
  const held = injectionRows(corpus).filter((r) => isHeldOut(r.id));
  const correct = held.filter(
    (r) => (predict(loaded, modelText(r.text))[1]! >= 0.5 ? 1 : 0) === r.label,
  ).length;
  console.log(
    `injection model: held-out accuracy ${(correct / held.length).toFixed(3)} on ${held.length} rows`,
  );
  console.log(
    "wrote models/injection-model.json, models/safety-hazard-model.json, models/safety-category-model.json",
  );
}

await main();
