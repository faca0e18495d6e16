/**
 * Loads the labelled development sets from the shared eval folder (../shared/eval beside the repo,
 * or EVAL_DIR). Used by the training script and by eval-guardrails.ts.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface DevRow {
  id: string;
  text: string;
  label: number;
  hazard?: string;
}

export function evalDir(): string {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  return process.env["EVAL_DIR"] ?? resolve(repoRoot, "../shared/eval");
}

export function loadDevSet(file: string): DevRow[] {
  const rows: DevRow[] = [];
  for (const line of readFileSync(resolve(evalDir(), file), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const raw = JSON.parse(line) as Partial<DevRow>;
    if (typeof raw.id !== "string" || typeof raw.text !== "string") continue;
    rows.push({
      id: raw.id,
      text: raw.text,
      label: raw.label ?? 0,
      ...(raw.hazard === undefined ? {} : { hazard: raw.hazard }),
    });
  }
  return rows;
}

export const DEV_FILES = {
  deepset: "injection_deepset_dev.jsonl",
  notInject: "injection_notinject_dev.jsonl",
  wildguardBenign: "benign_wildguard_dev.jsonl",
  ailuminate: "safety_ailuminate_dev.jsonl",
  pii: "pii_presidio_dev.jsonl",
} as const;
