import type { z } from "zod";
import type { KubeObject, ResourceType } from "../kube/types.js";
import type { ConditionInput } from "./conditions.js";
import type { Clock } from "./clock.js";
import type { OperatorEvent } from "./event-recorder.js";

/** What one controller (one CRD) implements; the runner does finalizers, status and events. */
export interface Controller<Spec> {
  resource: ResourceType;
  schema: z.ZodType<Spec>;
  /** Makes the world match the spec; returns the status to write. Throw only for unexpected failures. */
  sync(context: SyncContext<Spec>): Promise<SyncResult>;
  /** Removes what sync created, before the finalizer is dropped. Throw to retry. */
  cleanup(context: CleanupContext): Promise<void>;
}

export type Status = Record<string, unknown>;

export interface SyncContext<Spec> {
  object: KubeObject;
  spec: Spec;
  namespace: string;
  name: string;
  /** The status as last written (without conditions bookkeeping). */
  status: Status;
  clock: Clock;
  /** Writes status fields at once, e.g. a native id right after creating it, so a retry never duplicates it. */
  checkpoint(fields: Status): Promise<void>;
}

export interface CleanupContext {
  object: KubeObject;
  namespace: string;
  name: string;
  status: Status;
}

export interface SyncResult {
  /** Status fields besides conditions and observedGeneration; null clears a field. */
  status: Status;
  conditions: ConditionInput[];
  events?: OperatorEvent[];
  requeueAfterMs?: number;
  /** Write the status, then fail the key so the queue retries it with backoff. */
  retry?: unknown;
}

export function readyConditions(ready: boolean, reason: string, message: string): ConditionInput[] {
  const status = ready ? "True" : "False";
  return [
    { type: "Synced", status: ready ? "True" : "False", reason, message },
    { type: "Ready", status, reason, message },
  ];
}
