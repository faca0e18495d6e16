import type { AuditRepository } from "../store/audit-repository.js";
import type { RetentionRepository } from "../store/retention-repository.js";
import { GENESIS_HASH } from "./audit-record.js";
import type { CheckpointSigner } from "./checkpoint-signer.js";
import { verifyChain, type ChainReport } from "./verify-chain.js";

export type CustomerChainReport = ChainReport & { checkpoints_verified: number };

/**
 * Verifies a customer's chain over a time range (whole chain when open): every link, every record
 * digest, and every signed checkpoint inside the range (its signature and its hash).
 */
export async function verifyCustomerChain(
  records: AuditRepository,
  retention: RetentionRepository,
  signer: CheckpointSigner,
  customerId: string,
  from: Date | null,
  to: Date | null,
): Promise<CustomerChainReport> {
  const range = await records.seqRange(customerId, from, to);
  if (!range) {
    return {
      ok: true,
      checked: 0,
      first_seq: null,
      last_seq: null,
      last_hash: GENESIS_HASH,
      first_broken: null,
      checkpoints_verified: 0,
    };
  }
  const anchorHash =
    range.first === 1 ? GENESIS_HASH : await records.hashAt(customerId, range.first - 1);
  const checkpoints = await retention.checkpoints(customerId, range.first, range.last);
  const expected = new Map<number, string>();
  for (const c of checkpoints) {
    if (c.key_id === signer.keyId && !signer.verify(c)) {
      return {
        ok: false,
        checked: 0,
        first_seq: range.first,
        last_seq: null,
        last_hash: GENESIS_HASH,
        first_broken: { seq: c.seq, reason: "checkpoint_mismatch" },
        checkpoints_verified: 0,
      };
    }
    expected.set(c.seq, c.hash);
  }
  const report = await verifyChain(
    records.chain(customerId, range.first, range.last),
    { seq: range.first - 1, hash: anchorHash ?? GENESIS_HASH },
    expected,
  );
  return { ...report, checkpoints_verified: checkpoints.length };
}
