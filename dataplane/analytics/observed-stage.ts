import type { InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";

export interface StageObservers {
  /** After the stage admitted the call (its beforeForward returned). */
  admitted?: (call: InferenceCall) => void;
  /** After the stage's post-call work, whatever the outcome. Must not throw. */
  finished?: (call: InferenceCall) => void;
}

/**
 * The same stage, with observers called after its hooks (analytics, metrics, in-flight counts).
 * The pipeline and its order stay as they are; an observer that throws is ignored. A hook with no
 * observer is the stage's own (no wrapper, no extra await per call).
 */
export function observedStage(stage: PipelineStage, observers: StageObservers): PipelineStage {
  const safely = (fn: (call: InferenceCall) => void, call: InferenceCall) => {
    try {
      fn(call);
    } catch {
      // Observers never change a call's outcome.
    }
  };
  const { admitted, finished } = observers;
  const before = stage.beforeForward?.bind(stage);
  const after = stage.afterCall?.bind(stage);
  return {
    name: stage.name,
    beforeForward:
      admitted === undefined
        ? before
        : async (call) => {
            await before?.(call);
            safely(admitted, call);
          },
    transformResponse: stage.transformResponse
      ? (call, body) => stage.transformResponse?.(call, body) ?? Promise.resolve(body)
      : undefined,
    openStreamFilter: stage.openStreamFilter
      ? (call, part) => stage.openStreamFilter?.(call, part)
      : undefined,
    afterCall:
      finished === undefined
        ? after
        : async (call) => {
            try {
              await after?.(call);
            } finally {
              safely(finished, call);
            }
          },
  };
}
