import type { Clock } from "../core/clock.js";
import type { Caller } from "../core/identity.js";
import { PollingWorkLoop, renewLease } from "../core/polling-work-loop.js";
import type { Logger } from "../observability/logger.js";
import type { BatchRepository, ClaimedLine } from "../store/batch-repository.js";
import { finalizeBatch } from "./batch-finalize.js";
import type { FileRepository } from "../store/file-repository.js";
import { errorLine, answeredLine } from "./batch-output.js";
import type { BatchLine, BatchLineError, BatchRecord, BatchStatus } from "./batch-types.js";

/** What running one line gave: an answer to write, or a refusal to wait out (limits). */
export type LineRun =
  | { kind: "answered"; status: number; body: unknown; requestId: string }
  | { kind: "paused"; retryAfterMs: number };

export interface BatchRunnerDeps {
  batches: BatchRepository;
  files: FileRepository;
  /** The creating key's identity, or undefined when the key is revoked or gone. */
  loadCaller(batch: BatchRecord): Promise<Caller | undefined>;
  /** Reads and validates the input file for the batch's endpoint and the caller's models. */
  readInput(
    batch: BatchRecord,
    caller: Caller,
  ): Promise<{ lines: BatchLine[]; errors: BatchLineError[] }>;
  /** Runs one line as a normal call through the pipeline. */
  runLine(batch: BatchRecord, caller: Caller, line: BatchLine): Promise<LineRun>;
  clock: Clock;
  logger: Logger;
  /** This worker's identity in leases (unique per process). */
  owner: string;
  pollMs: number;
  leaseMs: number;
  concurrency: number;
}

/** A pause never sleeps longer than this before looking at cancel, expiry and shutdown again. */
const MAX_PAUSE_MS = 5_000;

/**
 * The batch worker of one replica. It takes one open batch at a time under a lease (a dead
 * worker's batch is taken over when its lease lapses), validates it, runs its lines a few at a
 * time through the normal pipeline, and writes the output and error files at the end.
 *
 * Exactly once per line: a line is claimed (pending -> running, committed) before its call is
 * sent and recorded (running -> done) after; a line found `running` under another owner was in
 * flight when that worker died, and is written as an error line rather than sent again.
 */
export class BatchRunner {
  private readonly loop: PollingWorkLoop;

  constructor(private readonly deps: BatchRunnerDeps) {
    this.loop = new PollingWorkLoop(
      () => this.runOnce(),
      deps.pollMs,
      (err) => deps.logger.error({ err: String(err) }, "batch worker round failed"),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops taking work; lines in flight finish and are recorded; the lease is given back. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Looks for work now instead of at the next poll (a batch was just created). */
  nudge(): void {
    this.loop.nudge();
  }

  /** Takes and works one batch; false when there was none. */
  async runOnce(): Promise<boolean> {
    const { batches, clock, owner, leaseMs } = this.deps;
    const now = clock.now();
    const batch = await batches.claim(owner, new Date(now), new Date(now + leaseMs));
    if (!batch) return false;
    const lease = renewLease(leaseMs, () =>
      batches.renew(batch.id, owner, new Date(clock.now() + leaseMs)),
    );
    try {
      await this.work(batch);
    } finally {
      lease.stop();
      if (!lease.lost) await batches.release(batch.id, owner).catch(() => undefined);
    }
    return true;
  }

  private async work(batch: BatchRecord): Promise<void> {
    const { batches, owner, clock } = this.deps;
    const caller = await this.deps.loadCaller(batch);
    if (batch.status === "validating") {
      const moved = await this.validate(batch, caller);
      if (!moved) return;
    }
    const state = await batches.progress(batch.id);
    if (!state) return;
    if (state.status === "in_progress") {
      await this.runLines(batch, caller);
      return;
    }
    if (state.status === "cancelling") {
      await finalizeBatch(this.deps, batch, "cancelled", clock.now());
      return;
    }
    if (state.status === "finalizing") {
      // Taken over in the middle of finalising: lines still pending mean time ran out.
      await finalizeBatch(
        this.deps,
        batch,
        state.pending > 0 ? "expired" : "completed",
        clock.now(),
      );
      return;
    }
    this.deps.logger.debug({ batch_id: batch.id, status: state.status, owner }, "batch idle");
  }

  private async validate(batch: BatchRecord, caller: Caller | undefined): Promise<boolean> {
    const { batches, owner, clock } = this.deps;
    const at = () => new Date(clock.now());
    if (!caller) {
      const error = {
        code: "invalid_api_key",
        message: "the API key that created this batch has been revoked",
        param: null,
        line: null,
      };
      await batches.failValidation(batch.id, owner, [error], at());
      return false;
    }
    const { lines, errors } = await this.deps.readInput(batch, caller);
    if (errors.length > 0) {
      await batches.failValidation(batch.id, owner, errors, at());
      return false;
    }
    return batches.startLines(batch.id, owner, lines, at());
  }

  private async runLines(batch: BatchRecord, caller: Caller | undefined): Promise<void> {
    const { batches, owner, clock, concurrency } = this.deps;
    for (const line of await batches.strandedLines(batch.id, owner)) {
      const text = errorLine(line.customId, {
        code: "batch_line_interrupted",
        message:
          "the worker running this request stopped before recording its answer; it was not " +
          "sent again so that no request runs twice",
      });
      await batches.recordLine(batch.id, line.owner, line.lineNo, text, true);
    }
    for (;;) {
      if (this.loop.stopping) return;
      const status: BatchStatus | undefined = await batches.status(batch.id);
      if (status === "cancelling") {
        await finalizeBatch(this.deps, batch, "cancelled", clock.now());
        return;
      }
      if (status !== "in_progress") return;
      const now = clock.now();
      if (now >= batch.expiresAt.getTime()) {
        await this.finishAs(batch, "expired");
        return;
      }
      const claimed = await batches.claimLines(batch.id, owner, new Date(now), concurrency);
      if (claimed.length === 0) {
        const state = await batches.progress(batch.id);
        // Nothing pending and nothing claimable: every line is done (or held by a lapsed lease).
        if (state && state.pending === 0) await this.finishAs(batch, "completed");
        return;
      }
      const runs = await Promise.all(claimed.map((line) => this.runOne(batch, caller, line)));
      const results = runs.flatMap((r) => ("line" in r ? [r] : []));
      await batches.recordLines(batch.id, owner, results);
      const pause = Math.max(0, ...runs.map((r) => ("pauseMs" in r ? r.pauseMs : 0)));
      if (pause > 0) await this.loop.sleep(Math.min(pause, MAX_PAUSE_MS));
    }
  }

  private async finishAs(batch: BatchRecord, final: "completed" | "expired"): Promise<void> {
    const { batches, owner, clock } = this.deps;
    const moved = await batches.transition(
      batch.id,
      owner,
      ["in_progress"],
      "finalizing",
      new Date(clock.now()),
    );
    if (moved) await finalizeBatch(this.deps, batch, final, clock.now());
  }

  /** Runs one claimed line: its result to record, or how long to pause (the line is given back). */
  private async runOne(
    batch: BatchRecord,
    caller: Caller | undefined,
    line: ClaimedLine,
  ): Promise<{ lineNo: number; line: string; isError: boolean } | { pauseMs: number }> {
    if (!caller) {
      const text = errorLine(line.customId, {
        code: "invalid_api_key",
        message: "the API key that created this batch has been revoked",
      });
      return { lineNo: line.lineNo, line: text, isError: true };
    }
    let run: LineRun;
    try {
      run = await this.deps.runLine(batch, caller, line);
    } catch (err) {
      this.deps.logger.error({ batch_id: batch.id, err: String(err) }, "batch line failed");
      run = {
        kind: "answered",
        status: 500,
        requestId: "",
        body: {
          error: { message: "internal error", type: "server_error", code: "internal_error" },
        },
      };
    }
    if (run.kind === "paused") {
      await this.deps.batches.unclaimLine(batch.id, this.deps.owner, line.lineNo);
      return { pauseMs: Math.max(1, run.retryAfterMs) };
    }
    const text = answeredLine(line.customId, run.status, run.requestId, run.body);
    return { lineNo: line.lineNo, line: text, isError: run.status >= 400 };
  }
}
