import { pino } from "pino";
import { openStores } from "../app/open-stores.js";
import { loadCheckpointSigner } from "../audit/checkpoint-signer.js";
import { verifyCustomerChain } from "../audit/verify-customer-chain.js";
import { loadConfigFromProcess } from "../config/config.js";
import { AuditRepository } from "../store/audit-repository.js";
import { RetentionRepository } from "../store/retention-repository.js";
import type { CliIo, Subcommand } from "./main.js";

const USAGE = "evident audit verify [--customer ID] [--from ISO] [--to ISO]";

function parse(args: string[]): { customer?: string; from: Date | null; to: Date | null } | string {
  const out: { customer?: string; from: Date | null; to: Date | null } = { from: null, to: null };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined) return `missing value for ${flag}`;
    if (flag === "--customer") out.customer = value;
    else if (flag === "--from" || flag === "--to") {
      const d = new Date(value);
      if (Number.isNaN(d.getTime())) return `${flag} must be an ISO 8601 time`;
      out[flag === "--from" ? "from" : "to"] = d;
    } else return `unknown option ${flag}`;
  }
  return out;
}

/**
 * Verifies the audit chain straight from the store the gateway is configured with (DATABASE_URL,
 * or the embedded database in DATA_DIR: stop the gateway first, PGlite is single-process). Prints
 * one JSON report per customer; exits 1 if any chain is broken.
 */
export const auditVerifyCommand: Subcommand = {
  summary: "verify the tamper-evident audit chain (one customer, or all)",
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const opts = parse(args);
    if (typeof opts === "string") {
      io.stderr.write(`${opts}\nusage: ${USAGE}\n`);
      return 2;
    }
    const config = loadConfigFromProcess();
    const stores = await openStores(config, pino({ level: "silent" }));
    try {
      const records = new AuditRepository(stores.db);
      const retention = new RetentionRepository(stores.db);
      const signer = await loadCheckpointSigner(config.EVIDENT_AUDIT_SIGNING_KEY, config.DATA_DIR);
      const customers = opts.customer ? [opts.customer] : await records.customers();
      let ok = true;
      for (const customer of customers) {
        const report = await verifyCustomerChain(
          records,
          retention,
          signer,
          customer,
          opts.from,
          opts.to,
        );
        ok &&= report.ok;
        io.stdout.write(`${JSON.stringify({ customer_id: customer, ...report })}\n`);
      }
      return ok ? 0 : 1;
    } finally {
      await stores.broadcast.close();
      await stores.redis?.close();
      await stores.db.close();
    }
  },
};
