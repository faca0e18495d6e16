import { GatewayError } from "../../dataplane/core/errors.js";
import { modelSpec, type ModelSpec } from "../crd/specs.js";
import { MODELS } from "../kube/resources.js";
import type { NativeApi, NativeModel } from "../native/native-api.js";
import { modelBody } from "../native/native-request-bodies.js";
import type { Controller, SyncContext, SyncResult } from "../runtime/controller.js";
import { readyConditions } from "../runtime/controller.js";
import { driftedFields, sameJson } from "../runtime/json-compare.js";
import { nativeFailure } from "../runtime/sync-failure.js";
import { deletionPolicyOf } from "./deletion-policy.js";
import { describeOwner, modelOwner, type ModelClaimants } from "./model-ownership.js";

/**
 * Model CR -> /api/v1/models. A registered model is frozen except engine_artifacts (and status), so
 * drift in engine_artifacts is PATCHed back, while a CR edit of a frozen field is reported as
 * Synced=False/FrozenFieldChanged (register a new version instead). A 409 model_version_exists on
 * create adopts the existing registration, unless another Model CR owns it (then this one is refused
 * with Ready=False/AlreadyOwned). Deleting the CR deregisters the model only with deletionPolicy
 * Delete (default Retain). A model deregistered through the REST API cannot come
 * back under the same version (deregistering is final): the CR reports Ready=False/Deregistered.
 */
export function modelController(
  native: NativeApi,
  claimants: ModelClaimants = async () => [],
): Controller<ModelSpec> {
  return {
    resource: MODELS,
    schema: modelSpec,
    async sync(context: SyncContext<ModelSpec>): Promise<SyncResult> {
      const body = modelBody(context.spec);
      const knownId =
        typeof context.status.modelId === "string" ? context.status.modelId : undefined;
      try {
        const owner = modelOwner(context.object, await claimants(body.name, body.version));
        if (owner.metadata.uid !== context.object.metadata.uid) {
          const message = `${body.name}@${body.version} belongs to ${describeOwner(owner)}; a second Model for the same name and version is refused (register another version)`;
          return {
            status: { modelId: null, phase: null },
            conditions: [
              { type: "Synced", status: "False", reason: "AlreadyOwned", message },
              { type: "Ready", status: "False", reason: "AlreadyOwned", message },
            ],
          };
        }
        let model = knownId === undefined ? undefined : await native.models.get(knownId);
        const events: SyncResult["events"] = [];
        if (!model) {
          model = await registerOrAdopt(native, body.name, body.version, () =>
            native.models.create(body),
          );
          await context.checkpoint({ modelId: model.id });
          events.push({
            type: "Normal",
            reason: "Registered",
            message: `registered ${body.name}@${body.version} as ${model.id}`,
          });
        }
        if (model.status === "deregistered") {
          // Deregistering is final and a name+version cannot be registered twice.
          const message = `${body.name}@${body.version} (${model.id}) was deregistered outside Kubernetes; register a new version`;
          return {
            status: { modelId: model.id, phase: model.status },
            conditions: [
              { type: "Synced", status: "False", reason: "Deregistered", message },
              { type: "Ready", status: "False", reason: "Deregistered", message },
            ],
            events,
          };
        }
        if (!sameJson(body.engine_artifacts, model.engine_artifacts)) {
          model = await native.models.patch(model.id, { engine_artifacts: body.engine_artifacts });
          events.push({
            type: "Warning",
            reason: "DriftReverted",
            message: "engine_artifacts reset to the CR's spec",
          });
        }
        const { engine_artifacts: _artifacts, ...frozen } = body;
        const frozenDrift = driftedFields(frozen, model);
        const phase = model.status ?? "registered";
        if (frozenDrift.length > 0) {
          const message = `fields frozen after registration differ from the spec: ${frozenDrift.join(", ")}; register a new version instead`;
          return {
            status: { modelId: model.id, phase },
            conditions: [
              { type: "Synced", status: "False", reason: "FrozenFieldChanged", message },
              {
                type: "Ready",
                status: "True",
                reason: "Registered",
                message: `registered as ${model.id}`,
              },
            ],
            events,
          };
        }
        return {
          status: { modelId: model.id, phase },
          conditions: readyConditions(true, "Registered", `registered as ${model.id}`),
          events,
        };
      } catch (err) {
        return nativeFailure(err, {});
      }
    },
    async cleanup({ object, status }): Promise<void> {
      // Retain (the default): deregistering is final, so a pruned CR leaves the model registered.
      if (typeof status.modelId !== "string" || deletionPolicyOf(object, "Retain") !== "Delete")
        return;
      // 409 model_has_active_deployments propagates: the queue retries until deployments are gone.
      await native.models.delete(status.modelId);
    },
  };
}

async function registerOrAdopt(
  native: NativeApi,
  name: string,
  version: string,
  create: () => Promise<NativeModel>,
): Promise<NativeModel> {
  try {
    return await create();
  } catch (err) {
    if (!(err instanceof GatewayError && err.code === "model_version_exists")) throw err;
    const existing = await native.models.find(name, version);
    if (!existing) throw err;
    return existing;
  }
}
