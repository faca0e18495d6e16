import { sql as customersAndKeys } from "./0001-customers-and-keys.js";
import { sql as modelsDeploymentsBackends } from "./0002-models-deployments-backends.js";
import { sql as audit } from "./0003-audit.js";
import { sql as usageAndBudgets } from "./0004-usage-and-budgets.js";
import { sql as guardrails } from "./0005-guardrails.js";
import { sql as routes } from "./0006-routes.js";
import { sql as auditColumnsAndQuarantine } from "./0007-audit-columns-and-quarantine.js";
import { sql as keyRoles } from "./0009-key-roles.js";
import { sql as prompts } from "./0011-prompts.js";
import { sql as responseCache } from "./0012-response-cache.js";
import { sql as filesAndBatches } from "./0013-files-and-batches.js";
import { sql as analyticsRollups } from "./0014-analytics-rollups.js";
import { sql as rag } from "./0015-rag.js";
import { sql as realtimeModality } from "./0016-realtime-modality.js";
import { sql as feedbackAndCacheScanIndex } from "./0018-feedback-and-cache-scan-index.js";
import { sql as auditMoveHead } from "./0019-audit-move-head.js";
import { sql as auditFieldsAsJson } from "./0020-audit-fields-as-json.js";

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

/** Numbered, forward-only. Append; never edit one that has shipped. */
export const migrations: readonly Migration[] = [
  { id: 1, name: "customers-and-keys", sql: customersAndKeys },
  { id: 2, name: "models-deployments-backends", sql: modelsDeploymentsBackends },
  { id: 3, name: "audit", sql: audit },
  { id: 4, name: "usage-and-budgets", sql: usageAndBudgets },
  { id: 5, name: "guardrails", sql: guardrails },
  { id: 6, name: "routes", sql: routes },
  { id: 7, name: "audit-columns-and-quarantine", sql: auditColumnsAndQuarantine },
  { id: 9, name: "key-roles", sql: keyRoles },
  { id: 11, name: "prompts", sql: prompts },
  { id: 12, name: "response-cache", sql: responseCache },
  { id: 13, name: "files-and-batches", sql: filesAndBatches },
  { id: 14, name: "analytics-rollups", sql: analyticsRollups },
  { id: 15, name: "rag", sql: rag },
  { id: 16, name: "realtime-modality", sql: realtimeModality },
  { id: 18, name: "feedback-and-cache-scan-index", sql: feedbackAndCacheScanIndex },
  { id: 19, name: "audit-move-head", sql: auditMoveHead },
  { id: 20, name: "audit-fields-as-json", sql: auditFieldsAsJson },
];
