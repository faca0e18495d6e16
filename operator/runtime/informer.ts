import type { Logger } from "pino";
import type { KubeClient, WatchHandle } from "../kube/kube-client.js";
import {
  isRecord,
  objectKey,
  type KubeObject,
  type ResourceType,
  type WatchEvent,
} from "../kube/types.js";
import { backoffDelay, type BackoffPolicy } from "./backoff.js";
import type { Clock } from "./clock.js";

export type ChangeHandler = (object: KubeObject, deleted: boolean) => void;

export interface InformerOptions {
  kube: KubeClient;
  resource: ResourceType;
  namespace: string | undefined;
  labelSelector?: string;
  clock: Clock;
  logger: Logger;
  /** A full relist (and a change notification for every object) this often: the periodic resync. */
  resyncMs: number;
  backoff: BackoffPolicy;
  random?: () => number;
  onChange: ChangeHandler;
  onWatchRestart?: (reason: "error" | "closed" | "expired" | "resync") => void;
}

/**
 * Keeps a cache of one resource type current: list, then watch from the list's resourceVersion with
 * bookmarks; a closed watch resumes from the last seen resourceVersion, a failed one after jittered
 * backoff, 410 Gone relists. Every resyncMs it relists and reports every object again.
 */
export class Informer {
  private readonly cache = new Map<string, KubeObject>();
  private resourceVersion = "";
  private watchHandle: WatchHandle | undefined;
  private cancelTimer: (() => void) | undefined;
  private cancelResync: (() => void) | undefined;
  private failures = 0;
  private generation = 0;
  private stopped = true;
  private synced = false;

  constructor(private readonly options: InformerOptions) {}

  get hasSynced(): boolean {
    return this.synced;
  }

  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  list(): KubeObject[] {
    return [...this.cache.values()];
  }

  get(namespace: string, name: string): KubeObject | undefined {
    return this.cache.get(objectKey(namespace, name));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.relist();
  }

  stop(): void {
    this.stopped = true;
    this.generation += 1;
    this.cancelTimer?.();
    this.cancelResync?.();
    this.watchHandle?.abort();
    this.watchHandle = undefined;
  }

  private async relist(): Promise<void> {
    const generation = ++this.generation;
    this.watchHandle?.abort();
    this.watchHandle = undefined;
    this.cancelResync?.();
    const { kube, resource, namespace, labelSelector } = this.options;
    let listed;
    try {
      listed = await kube.list(resource, namespace, labelSelector);
    } catch (err) {
      if (generation !== this.generation) return;
      this.retryLater(err, () => this.relist());
      return;
    }
    if (generation !== this.generation) return;
    const seen = new Set<string>();
    for (const object of listed.items) {
      const key = objectKey(object.metadata.namespace, object.metadata.name);
      seen.add(key);
      this.cache.set(key, object);
      this.options.onChange(object, false);
    }
    for (const [key, object] of this.cache) {
      if (!seen.has(key)) {
        this.cache.delete(key);
        this.options.onChange(object, true);
      }
    }
    this.resourceVersion = listed.resourceVersion;
    this.synced = true;
    this.failures = 0;
    this.cancelResync = this.options.clock.setTimer(this.options.resyncMs, () => {
      this.options.onWatchRestart?.("resync");
      void this.relist();
    });
    await this.watch(generation);
  }

  private async watch(generation: number): Promise<void> {
    const { kube, resource, namespace, labelSelector } = this.options;
    let expired = false;
    let sawEvent = false;
    const onEvent = (event: WatchEvent): void => {
      if (generation !== this.generation) return;
      if (event.type === "ERROR") {
        expired = isRecord(event.object) && event.object.code === 410;
        return;
      }
      sawEvent = true;
      this.failures = 0;
      this.apply(event);
    };
    const onDone = (err?: unknown): void => {
      if (generation !== this.generation) return;
      this.watchHandle = undefined;
      if (expired || isGone(err)) {
        this.options.logger.info(
          { resource: resource.plural },
          "watch resourceVersion expired; relisting",
        );
        this.options.onWatchRestart?.("expired");
        void this.relist();
      } else if (err !== undefined && !isIdleTimeout(err)) {
        this.options.onWatchRestart?.("error");
        this.retryLater(err, () => this.watch(generation));
      } else {
        this.options.onWatchRestart?.("closed");
        // A normal close resumes at once; a close with no event at all backs off a little.
        if (sawEvent) void this.watch(generation);
        else this.retryLater(undefined, () => this.watch(generation));
      }
    };
    try {
      const handle = await kube.watch(
        {
          resource,
          namespace,
          labelSelector,
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: 300,
        },
        onEvent,
        onDone,
      );
      if (generation !== this.generation) handle.abort();
      else this.watchHandle = handle;
    } catch (err) {
      onDone(err ?? new Error("watch failed"));
    }
  }

  private apply(event: WatchEvent): void {
    const object = event.object;
    const rv = object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (event.type === "BOOKMARK") return;
    const key = objectKey(object.metadata.namespace, object.metadata.name);
    if (event.type === "DELETED") {
      this.cache.delete(key);
      this.options.onChange(object, true);
      return;
    }
    this.cache.set(key, object);
    this.options.onChange(object, false);
  }

  private retryLater(err: unknown, again: () => Promise<void>): void {
    if (this.stopped) return;
    this.failures += 1;
    const delay = backoffDelay(this.options.backoff, this.failures, this.options.random);
    if (err !== undefined) {
      this.options.logger.warn(
        {
          resource: this.options.resource.plural,
          attempt: this.failures,
          retryInMs: delay,
          err: describe(err),
        },
        "Kubernetes API call failed; retrying",
      );
    }
    const generation = this.generation;
    this.cancelTimer?.();
    this.cancelTimer = this.options.clock.setTimer(delay, () => {
      if (generation === this.generation && !this.stopped) void again();
    });
  }
}

/** client-node ends a watch that saw no bytes for 30 s; that is a quiet stream, not a failure. */
function isIdleTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === "TimeoutError";
}

function isGone(err: unknown): boolean {
  return isRecord(err) && (err.statusCode === 410 || err.status === 410 || err.code === 410);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
