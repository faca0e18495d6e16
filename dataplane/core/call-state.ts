import type { InferenceCall } from "./inference-call.js";

type Slots = Record<symbol, unknown>;

const slotsOf = (call: InferenceCall): Slots => call as unknown as Slots;

/**
 * State a stage keeps for one call between its hooks (a reservation, a span, the guard's
 * config), stored on the call object under a symbol of this instance's own, so it goes away with
 * the call. It replaces `WeakMap<InferenceCall, T>`: a WeakMap entry per call is an ephemeron that
 * every garbage collection has to visit and clear, and with a dozen such maps on the inference
 * path that cost a few microseconds per call (docs/benchmarks.md, "Issue 13, fourth pass").
 * A symbol-keyed property is invisible to JSON, Object.keys and the call's own fields.
 * `undefined` means "nothing kept": set() takes only defined values.
 */
export class CallState<T extends NonNullable<unknown>> {
  private readonly key: symbol;

  constructor(name: string) {
    this.key = Symbol(name);
  }

  get(call: InferenceCall): T | undefined {
    return slotsOf(call)[this.key] as T | undefined;
  }

  has(call: InferenceCall): boolean {
    return slotsOf(call)[this.key] !== undefined;
  }

  set(call: InferenceCall, value: T): this {
    slotsOf(call)[this.key] = value;
    return this;
  }

  /** Forgets the call's state (the property stays, set to undefined: the call's shape is kept). */
  delete(call: InferenceCall): boolean {
    const slots = slotsOf(call);
    if (slots[this.key] === undefined) return false;
    slots[this.key] = undefined;
    return true;
  }
}
