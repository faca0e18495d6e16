import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { KubeClient } from "../kube/kube-client.js";
import { EVENTS } from "../kube/resources.js";
import type { KubeObject } from "../kube/types.js";
import type { Clock } from "./clock.js";

export interface OperatorEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

/** Writes events.k8s.io/v1 Events about a custom resource; a failed write is logged, never fatal. */
export class EventRecorder {
  constructor(
    private readonly kube: KubeClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly reportingInstance: string,
  ) {}

  async record(object: KubeObject, event: OperatorEvent): Promise<void> {
    const namespace = object.metadata.namespace ?? "default";
    const now = new Date(this.clock.now());
    const name = `${object.metadata.name}.${now.getTime().toString(16)}${randomBytes(4).toString("hex")}`;
    try {
      await this.kube.create(EVENTS, namespace, {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name, namespace },
        eventTime: now.toISOString().replace("Z", "000Z"),
        reportingController: "evident.dev/operator",
        reportingInstance: this.reportingInstance,
        action: event.reason,
        reason: event.reason,
        note: event.message.slice(0, 1000),
        type: event.type,
        regarding: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          namespace,
          uid: object.metadata.uid,
          resourceVersion: object.metadata.resourceVersion,
        },
      });
    } catch (err) {
      this.logger.warn(
        { err: err instanceof Error ? err.message : String(err), reason: event.reason },
        "could not record event",
      );
    }
  }
}
