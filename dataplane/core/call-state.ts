import type { InferenceCall } from "./inference-call.js";

/**
 * Where a call keeps its stages' state: a symbol, so the slots (which can hold a guard's
 * placeholder map, i.e. the originals of redacted values) never show in JSON or Object.keys.
 */
export const STAGE_STATE: unique symbol = Symbol("stageState");

/**
 * Slots handed out so far: each CallState owns one index of every call's stage-state array. The
 * stages make theirs when an app is built (createApp), so a gateway has a dozen; a test process
 * that builds many apps gets longer arrays, still one per call.
 */
let slotsCreated = 0;

/** A call's stage-state slots, sized for every CallState made so far (holes read as undefined). */
export function newStageState(): unknown[] {
  return new Array<unknown>(slotsCreated);
}

/**
 * State a stage keeps for one call between its hooks (a reservation, a span, the guard's
 * config), stored in a slot of the call's own stage-state array (`STAGE_STATE`), so it goes away
 * with the call. It replaces `WeakMap<InferenceCall, T>`, whose entry per call is an ephemeron
 * every garbage collection has to visit and clear (a micro-benchmark of eleven such maps: 2.5-3
 * µs per call; within noise in the gateway's A/B; docs/benchmarks.md, "Issue 13, fourth pass").
 * The slots are one array made with the call, so keeping state allocates nothing more.
 * `undefined` means "nothing kept": set() takes only defined values.
 */
export class CallState<T extends NonNullable<unknown>> {
  private readonly slot = slotsCreated++;

  /** `name` says whose state it is (for a reader of a heap snapshot). */
  constructor(readonly name: string) {}

  get(call: InferenceCall): T | undefined {
    return call[STAGE_STATE]?.[this.slot] as T | undefined;
  }

  has(call: InferenceCall): boolean {
    return this.get(call) !== undefined;
  }

  set(call: InferenceCall, value: T): this {
    (call[STAGE_STATE] ??= newStageState())[this.slot] = value;
    return this;
  }

  /** Forgets the call's state. */
  delete(call: InferenceCall): boolean {
    if (this.get(call) === undefined) return false;
    (call[STAGE_STATE] as unknown[])[this.slot] = undefined;
    return true;
  }
}
