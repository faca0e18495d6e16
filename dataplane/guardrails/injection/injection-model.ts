/** The bundled injection classifier (trained by scripts/train-guardrail-models.ts). */
import { loadLinearModel, type LinearModel } from "../models/linear-model.js";
import stored from "../models/injection-model.json" with { type: "json" };

export const INJECTION_MODEL: LinearModel = loadLinearModel(stored);
