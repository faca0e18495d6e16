import path from "node:path";
import { Gauge } from "prom-client";
import { AuditIngester } from "../audit/audit-ingester.js";
import { AuditLog } from "../audit/audit-log.js";
import { AuditSpool } from "../audit/audit-spool.js";
import { AuditWriter } from "../audit/audit-writer.js";
import { loadCheckpointSigner, type CheckpointSigner } from "../audit/checkpoint-signer.js";
import { RetentionSweeper } from "../audit/retention-sweeper.js";
import type { Config } from "../config/config.js";
import type { Clock } from "../core/clock.js";
import type { Logger } from "../observability/logger.js";
import type { Metrics } from "../observability/metrics.js";
import { AuditQuarantineRepository } from "../store/audit-quarantine-repository.js";
import { AuditRepository } from "../store/audit-repository.js";
import type { Database } from "../store/database.js";
import { RetentionRepository } from "../store/retention-repository.js";

export interface AuditDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  db: Database;
}

/** The audit evidence as the app wires it in: local log, ingester, chain, checkpoints, retention. */
export interface AuditWiring {
  repo: AuditRepository;
  retention: RetentionRepository;
  writer: AuditWriter;
  log: AuditLog;
  signer: CheckpointSigner;
  sweeper: RetentionSweeper;
  /** Stops checkpoints and the sweeper, then drains the local log (within the grace period). */
  close(): Promise<void>;
}

/**
 * Every record goes to the local append-only log (synced with O_DSYNC, group commit) and an ingester moves
 * it into the store, extending the hash chain there (docs/audit.md); with AUDIT_DURABILITY=store a
 * reply waits for the store commit instead.
 */
export async function buildAudit({
  config,
  clock,
  logger,
  metrics,
  db,
}: AuditDeps): Promise<AuditWiring> {
  const repo = new AuditRepository(db);
  const retention = new RetentionRepository(db);
  const spoolDir = config.AUDIT_SPOOL_DIR ?? path.resolve(config.DATA_DIR, "audit-spool");
  const spool = await AuditSpool.open(spoolDir, config.AUDIT_SPOOL_MAX_BYTES);
  const ingester = new AuditIngester(
    db,
    repo,
    new AuditQuarantineRepository(db),
    spool,
    spoolDir,
    logger,
    {
      batchBytes: 512 * 1024,
      retryMs: 50,
      maxRetryMs: 1_000,
      // One store transaction per ~10 ms of records rather than per group commit; per ~40 ms
      // while more than 3 records a millisecond arrive (ingest-linger.ts).
      linger: { quietMs: 10, busyMs: 40, busyRecordsPerMs: 3 },
      onQuarantine: () => metrics.auditQuarantined.inc(),
    },
  );
  const writer = new AuditWriter(db, repo, spool, ingester, logger, {
    durability: config.AUDIT_DURABILITY,
    maxBatch: 500,
    brokenMs: 1_000,
    activeWaitMs: config.AUDIT_ACTIVE_WAIT_MS,
  });
  writer.start();
  new Gauge({
    name: "evident_audit_log_backlog_bytes",
    help: "Bytes of audit records in the local log not yet in the store",
    registers: [metrics.registry],
    collect() {
      this.set(spool.backlogBytes);
    },
  });
  const signer = await loadCheckpointSigner(config.EVIDENT_AUDIT_SIGNING_KEY, config.DATA_DIR);
  const log = new AuditLog(writer, repo, retention, signer, clock, logger);
  log.startCheckpoints(config.AUDIT_CHECKPOINT_INTERVAL_MS);
  const sweeper = new RetentionSweeper(db, repo, retention, clock, logger);
  sweeper.start(config.RETENTION_SWEEP_INTERVAL_MS);
  return {
    repo,
    retention,
    writer,
    log,
    signer,
    sweeper,
    async close() {
      log.stopCheckpoints();
      sweeper.stop();
      await writer.stop(config.SHUTDOWN_GRACE_MS);
    },
  };
}
