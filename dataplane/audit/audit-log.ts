import type { Clock } from "../core/clock.js";
import type { Caller } from "../core/identity.js";
import { pausesBatchLine, type InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";
import type { Logger } from "../observability/logger.js";
import type { AuditRepository } from "../store/audit-repository.js";
import { RefreshingCache } from "../store/refreshing-cache.js";
import type { RetentionRepository, RetentionSettings } from "../store/retention-repository.js";
import { auditUnavailable, type AuditWriter } from "./audit-writer.js";
import { recordForCall } from "./call-record.js";
import type { CheckpointSigner } from "./checkpoint-signer.js";
import { verifyCustomerChain } from "./verify-customer-chain.js";
import { managementRecord } from "./management-record.js";

const SETTINGS_TTL_MS = 30_000;

/** What a hook that has nothing to wait for returns (one settled promise, shared). */
const ADMITTED: Promise<void> = Promise.resolve();

/** The audit log as the rest of the gateway uses it. */
export class AuditLog {
  private readonly settingsCache: RefreshingCache<RetentionSettings>;
  private checkpointTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly writer: AuditWriter,
    private readonly records: AuditRepository,
    private readonly retention: RetentionRepository,
    readonly signer: CheckpointSigner,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.settingsCache = new RefreshingCache(clock, SETTINGS_TTL_MS);
  }

  /**
   * The pipeline's audit stage: refuses calls it could not record; records every call once. While
   * the customer's settings are cached (nearly always), both hooks run without an async frame of
   * their own: afterCall returns the writer's promise itself.
   */
  stage(): PipelineStage {
    return {
      name: "audit",
      beforeForward: (call: InferenceCall) => {
        const cached = this.settingsCache.fresh(call.caller.customer.id);
        if (cached === undefined) return this.admitAfterSettings(call);
        call.captureContent = cached.contentMode !== "none";
        return this.writer.saturated ? Promise.reject(auditUnavailable()) : ADMITTED;
      },
      afterCall: (call: InferenceCall) => {
        // A batch line refused by limits is retried later: its record is the retried call's.
        if (call.batch && pausesBatchLine(call.error)) return ADMITTED;
        const cached = this.settingsCache.fresh(call.caller.customer.id);
        if (cached === undefined) return this.recordAfterSettings(call);
        try {
          return this.writer.append(recordForCall(call, this.clock.now(), cached.contentMode));
        } catch (err) {
          return Promise.reject(err as Error);
        }
      },
    };
  }

  private async admitAfterSettings(call: InferenceCall): Promise<void> {
    call.captureContent = (await this.settings(call.caller.customer.id)).contentMode !== "none";
    if (this.writer.saturated) throw auditUnavailable();
  }

  private async recordAfterSettings(call: InferenceCall): Promise<void> {
    const settings = await this.settings(call.caller.customer.id);
    await this.writer.append(recordForCall(call, this.clock.now(), settings.contentMode));
  }

  /** Records a management action that changed policy or evidence, with the acting key. */
  async management(
    caller: Caller,
    action: string,
    subject: string | null,
    details: Record<string, unknown> = {},
    customerId?: string,
  ) {
    await this.writer.append(
      managementRecord({
        customerId: customerId ?? caller.customer.id,
        keyId: caller.key.id,
        action,
        subject,
        details,
        occurredAt: new Date(this.clock.now()).toISOString(),
      }),
    );
  }

  async settings(customerId: string): Promise<RetentionSettings> {
    return this.settingsCache.get(customerId, () => this.retention.settings(customerId));
  }

  forgetSettings(customerId: string): void {
    this.settingsCache.invalidate(customerId);
  }

  /** Signs a checkpoint for every chain that grew since its last one. */
  async checkpoint(): Promise<number> {
    let made = 0;
    for (const head of await this.records.heads()) {
      if (head.last_seq <= (await this.retention.lastCheckpointSeq(head.customer_id))) continue;
      await this.retention.saveCheckpoint(
        this.signer.sign({
          customer_id: head.customer_id,
          seq: head.last_seq,
          hash: head.last_hash,
          created_at: new Date(this.clock.now()).toISOString(),
        }),
      );
      made += 1;
    }
    return made;
  }

  startCheckpoints(intervalMs: number): void {
    this.checkpointTimer = setInterval(() => {
      this.checkpoint().catch((err: unknown) =>
        this.logger.warn({ err: String(err) }, "audit checkpoint failed"),
      );
    }, intervalMs);
    this.checkpointTimer.unref();
  }

  stopCheckpoints(): void {
    if (this.checkpointTimer) clearInterval(this.checkpointTimer);
  }

  /**
   * Waits (boundedly) until every record this replica has answered for is in the store, so a
   * caller reads its own calls' records at once; other replicas' records follow their ingestion.
   */
  caughtUp(): Promise<void> {
    return this.writer.caughtUp();
  }

  /** Verifies a customer's chain over a time range (whole chain when open); see verifyCustomerChain. */
  async verify(customerId: string, from: Date | null, to: Date | null) {
    await this.caughtUp();
    return verifyCustomerChain(this.records, this.retention, this.signer, customerId, from, to);
  }
}
