import { createHash } from "node:crypto";
import type { AbArm } from "./prompt-types.js";

/**
 * Picks an arm by weight (weight 0 is never picked). `point` is in [0, 1): random per call, or
 * `stickyPoint` of the caller so one caller always lands in the same arm of a test.
 */
export function pickArm(arms: readonly AbArm[], point: number): AbArm | undefined {
  const live = arms.filter((a) => a.weight > 0);
  const total = live.reduce((sum, a) => sum + a.weight, 0);
  if (total <= 0) return undefined;
  let left = point * total;
  for (const arm of live) {
    left -= arm.weight;
    if (left < 0) return arm;
  }
  return live[live.length - 1];
}

/** A stable point in [0, 1) for (test, caller): the same inputs always give the same arm. */
export function stickyPoint(testId: string, callerId: string): number {
  const digest = createHash("sha256").update(`${testId}\u0000${callerId}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}
