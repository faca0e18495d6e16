/** The bundled content-safety classifiers (trained by scripts/train-guardrail-models.ts). */
import { loadLinearModel } from "../models/linear-model.js";
import hazard from "../models/safety-hazard-model.json" with { type: "json" };
import category from "../models/safety-category-model.json" with { type: "json" };
import type { SafetyModels } from "./score-safety.js";

export const SAFETY_MODELS: SafetyModels = {
  hazard: loadLinearModel(hazard),
  category: loadLinearModel(category),
};
