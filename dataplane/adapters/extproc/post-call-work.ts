import type { Logger } from "../../observability/logger.js";

/**
 * Runs a call's post-call work (metering, audit) once. Envoy waits for the answer that follows it,
 * so it waits at most the decision deadline; slower work goes on in the background.
 */
export class PostCallWork {
  private ran = false;

  constructor(
    private readonly logger: Logger,
    private readonly decisionTimeoutMs: number,
  ) {}

  /** Whether the work has run (or is running). */
  get finished(): boolean {
    return this.ran;
  }

  async once(requestId: string, work: () => Promise<unknown>): Promise<void> {
    if (this.ran) return;
    this.ran = true;
    const running = work().catch((err: unknown) => {
      this.logger.error({ request_id: requestId, err: String(err) }, "post-call processing failed");
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.decisionTimeoutMs);
    });
    await Promise.race([running, deadline]);
    clearTimeout(timer);
  }
}
