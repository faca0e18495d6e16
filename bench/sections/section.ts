/** One benchmark section: bench/run.ts runs a list of these and prints/saves their reports. */
import type { BenchOptions } from "../config/bench-options.js";

export interface SectionContext {
  options: BenchOptions;
  /** Progress lines for the operator (never secrets or prompts). */
  log(line: string): void;
}

export interface TargetCheck {
  name: string;
  /** The measured value, in the unit the name says. */
  value: number | string;
  /** The target, as written in the issue. */
  goal: string;
  /** undefined when it could not be measured (e.g. the gateway path is missing). */
  met: boolean | undefined;
}

export interface SectionReport {
  name: string;
  /** First row is the header. */
  table: string[][];
  /** Named ratios and differences, the numbers to read first. */
  ratios: Record<string, number | null>;
  targets: TargetCheck[];
  notes: string[];
  /** Everything measured, for .bench/last.json. */
  data: unknown;
}

export interface Section {
  name: string;
  run(context: SectionContext): Promise<SectionReport>;
}
