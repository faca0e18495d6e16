/** The development rows grouped for training, and how each becomes a training example. */
import { modelText } from "../dataplane/guardrails/models/model-text.js";
import {
  SAFETY_CATEGORIES,
  safetyClassOf,
} from "../dataplane/guardrails/safety/safety-categories.js";
import { readFileSync } from "node:fs";
import { DEV_FILES, loadDevSet, type DevRow } from "./train-dev-sets.js";
import type { TrainingExample } from "./train-linear-model.js";

export interface Corpus {
  deepset: DevRow[];
  notInject: DevRow[];
  wildguard: DevRow[];
  ailuminate: DevRow[];
  /** Hand-written benign prompts on sensitive topics (models/training/), always trained on, never scored. */
  handwritten: DevRow[];
}

const HANDWRITTEN = new URL(
  "../dataplane/guardrails/models/training/benign-sensitive-topics.txt",
  import.meta.url,
);

function loadHandwritten(): DevRow[] {
  return readFileSync(HANDWRITTEN, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((text, i) => ({ id: `handwritten_${i}`, text, label: 0 }));
}

export function loadCorpus(): Corpus {
  return {
    deepset: loadDevSet(DEV_FILES.deepset),
    notInject: loadDevSet(DEV_FILES.notInject),
    wildguard: loadDevSet(DEV_FILES.wildguardBenign),
    ailuminate: loadDevSet(DEV_FILES.ailuminate),
    handwritten: loadHandwritten(),
  };
}

export function injectionExamples(rows: DevRow[]): TrainingExample[] {
  return rows.map((r) => ({ text: modelText(r.text), y: r.label === 1 ? 1 : 0 }));
}

export function hazardExamples(hazardous: DevRow[], benign: DevRow[]): TrainingExample[] {
  return [
    ...hazardous.map((r) => ({ text: modelText(r.text), y: 1 })),
    ...benign.map((r) => ({ text: modelText(r.text), y: 0 })),
  ];
}

export function categoryExamples(hazardous: DevRow[]): TrainingExample[] {
  return hazardous.map((r) => ({
    text: modelText(r.text),
    y: SAFETY_CATEGORIES.indexOf(safetyClassOf(r.hazard ?? "")),
  }));
}

export function injectionRows(c: Corpus): DevRow[] {
  return [...c.deepset, ...c.notInject, ...c.wildguard];
}

export function safetyBenignRows(c: Corpus): DevRow[] {
  return [...c.deepset.filter((r) => r.label === 0), ...c.notInject, ...c.wildguard];
}
