import { Writable } from "node:stream";
import type { Clock } from "../core/clock.js";
import type { Logger } from "../observability/logger.js";
import type { AuditRepository } from "../store/audit-repository.js";
import type { ExportJob, ExportRepository } from "../store/export-repository.js";
import type { RetentionRepository } from "../store/retention-repository.js";
import { GENESIS_HASH } from "./audit-record.js";
import type { CheckpointSigner } from "./checkpoint-signer.js";
import { writeEvidenceBundle } from "./export-bundle/write-evidence-bundle.js";

const CHUNK_BYTES = 1024 * 1024;

export interface ExportPolicies {
  /** The policies in force for a customer (guardrails, rules, retention, holds), for the bundle. */
  (customerId: string): Promise<Record<string, unknown>>;
}

/**
 * Runs compliance exports in the background: queued -> running -> completed | failed. Each
 * bundle is streamed into the store in 1 MiB chunks as it is written, so memory stays bounded and
 * any replica can serve the download.
 */
export class ExportJobs {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly exports: ExportRepository,
    private readonly records: AuditRepository,
    private readonly retention: RetentionRepository,
    private readonly signer: CheckpointSigner,
    private readonly policies: ExportPolicies,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly version: string,
    /** Waits until this replica's local audit log is in the store (see AuditWriter.caughtUp). */
    private readonly caughtUp: () => Promise<void> = () => Promise.resolve(),
  ) {}

  start(intervalMs = 2_000): void {
    this.timer = setInterval(() => void this.runPending(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Processes queued jobs until none is left (also called right after a job is created). */
  runPending(): Promise<void> {
    this.running ??= (async () => {
      try {
        await this.exports.requeueStale(new Date(this.clock.now() - 30 * 60_000));
        for (let job = await this.exports.claim(); job; job = await this.exports.claim())
          await this.run(job);
      } catch (err) {
        this.logger.warn({ err: String(err) }, "export worker failed");
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async run(job: ExportJob): Promise<void> {
    try {
      await this.caughtUp();
      const range = await this.records.seqRange(job.customerId, job.from, job.to);
      const first = range?.first ?? 1;
      const last = range?.last ?? 0;
      const anchorHash =
        first <= 1 ? GENESIS_HASH : await this.records.hashAt(job.customerId, first - 1);
      const checkpoints = await this.retention.checkpoints(
        job.customerId,
        Math.max(0, first - 1),
        Number.MAX_SAFE_INTEGER,
      );
      let idx = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        const data = Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
        await this.exports.saveChunk(job.id, idx++, data);
      };
      const sink = new Writable({
        write: (chunk: Buffer, _enc, done) => {
          pending.push(chunk);
          pendingBytes += chunk.length;
          if (pendingBytes < CHUNK_BYTES) return done();
          flush().then(() => done(), done);
        },
        final: (done) => void flush().then(() => done(), done),
      });
      const summary = await writeEvidenceBundle(
        {
          meta: {
            export_id: job.id,
            customer_id: job.customerId,
            kind: job.kind,
            from: job.from.toISOString(),
            to: job.to.toISOString(),
            generator: { name: "evident", version: this.version },
            generated_at: new Date(this.clock.now()).toISOString(),
          },
          records: () => this.records.chain(job.customerId, first, last),
          anchor: { seq: first - 1, hash: anchorHash ?? GENESIS_HASH },
          policies: await this.policies(job.customerId),
          checkpoints,
          public_key_pem: this.signer.publicKeyPem,
        },
        sink,
      );
      await this.exports.complete(job.id, {
        recordCount: summary.record_count,
        sizeBytes: summary.size,
        sha256: summary.sha256,
        chainOk: summary.chain.ok,
      });
    } catch (err) {
      this.logger.warn({ export_id: job.id, err: String(err) }, "export failed");
      await this.exports.fail(job.id, err instanceof Error ? err.message : "export failed");
    }
  }
}
