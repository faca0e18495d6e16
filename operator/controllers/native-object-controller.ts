import type { z } from "zod";
import type { ResourceType } from "../kube/types.js";
import type { Native, NativeCrud } from "../native/native-api.js";
import type { Controller, SyncContext, SyncResult } from "../runtime/controller.js";
import { readyConditions } from "../runtime/controller.js";
import { driftedFields } from "../runtime/json-compare.js";
import { nativeFailure } from "../runtime/sync-failure.js";
import { deletionPolicyOf } from "./deletion-policy.js";

export interface NativeObjectOptions<Spec, Body extends object> {
  resource: ResourceType;
  schema: z.ZodType<Spec>;
  /** Status field holding the native id, e.g. "routeId". */
  idField: string;
  api: NativeCrud<Body, Native<Body>>;
  toBody(spec: Spec, name: string): Body;
}

/**
 * A CR that owns exactly one native object (Route, GuardrailRule): create it, revert drift with a
 * PATCH of the whole body (GitOps wins), recreate it when it was deleted behind our back, delete it
 * with the CR unless spec.deletionPolicy is Retain.
 */
export function nativeObjectController<Spec, Body extends object>(
  options: NativeObjectOptions<Spec, Body>,
): Controller<Spec> {
  const { api, idField } = options;
  return {
    resource: options.resource,
    schema: options.schema,
    async sync(context: SyncContext<Spec>): Promise<SyncResult> {
      const body = options.toBody(context.spec, context.name);
      const knownId =
        typeof context.status[idField] === "string"
          ? (context.status[idField] as string)
          : undefined;
      try {
        const existing = knownId === undefined ? undefined : await api.get(knownId);
        if (!existing) {
          const created = await api.create(body);
          await context.checkpoint({ [idField]: created.id, synced: false });
          return {
            status: { [idField]: created.id, synced: true },
            conditions: readyConditions(
              true,
              "Synced",
              `created ${options.resource.kind.toLowerCase()} ${created.id}`,
            ),
            events: [
              knownId === undefined
                ? {
                    type: "Normal",
                    reason: "Created",
                    message: `created ${created.id} through the native API`,
                  }
                : {
                    type: "Warning",
                    reason: "Recreated",
                    message: `${knownId} was deleted outside Kubernetes; recreated as ${created.id}`,
                  },
            ],
          };
        }
        const drifted = driftedFields(body, existing);
        const events: SyncResult["events"] = [];
        if (drifted.length > 0) {
          await api.patch(existing.id, body);
          const specChanged =
            context.object.metadata.generation !== context.status.observedGeneration;
          events.push(
            specChanged
              ? { type: "Normal", reason: "Updated", message: `updated ${drifted.join(", ")}` }
              : {
                  type: "Warning",
                  reason: "DriftReverted",
                  message: `reverted ${drifted.join(", ")} changed outside Kubernetes`,
                },
          );
        }
        return {
          status: { [idField]: existing.id, synced: true },
          conditions: readyConditions(true, "Synced", `in sync with ${existing.id}`),
          events,
        };
      } catch (err) {
        return nativeFailure(err, { synced: false });
      }
    },
    async cleanup({ object, status }): Promise<void> {
      const id = status[idField];
      if (typeof id === "string" && deletionPolicyOf(object, "Delete") === "Delete")
        await api.delete(id);
    },
  };
}
