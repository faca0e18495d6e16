import { z } from "zod";

/**
 * Named response shapes for /openapi.json (the spec's names where it has them). Objects are open
 * (`looseObject`): the fields listed are guaranteed; more may be added without a new version.
 */
const timestamps = { created_at: z.string(), updated_at: z.string() };

function listResponse(item: z.ZodType, id: string) {
  return z
    .looseObject({ object: z.literal("list"), data: z.array(item), has_more: z.boolean() })
    .meta({ id });
}

export const modelResponse = z
  .looseObject({
    id: z.string(),
    object: z.literal("model"),
    name: z.string(),
    version: z.string(),
    architecture: z.string().nullable(),
    modality: z.string(),
    status: z.string(),
    aliases: z.array(z.string()),
    required_tier: z.string(),
    ...timestamps,
  })
  .meta({ id: "ModelResponse" });
export const modelListResponse = listResponse(modelResponse, "ModelListResponse");

export const deploymentResponse = z
  .looseObject({
    id: z.string(),
    object: z.literal("deployment"),
    model_id: z.string(),
    status: z.string(),
    endpoint_url: z.string().nullable(),
    ...timestamps,
  })
  .meta({ id: "DeploymentResponse" });
export const deploymentListResponse = listResponse(deploymentResponse, "DeploymentListResponse");

export const backendResponse = z
  .looseObject({
    id: z.string(),
    object: z.literal("backend"),
    customer_id: z.string(),
    name: z.string(),
    base_url: z.string(),
    models: z.array(z.string()),
    enabled: z.boolean(),
    has_credential: z.boolean(),
    ...timestamps,
  })
  .meta({ id: "BackendResponse" });
export const backendListResponse = listResponse(backendResponse, "BackendListResponse");

export const ruleResponse = z
  .looseObject({
    id: z.string(),
    rule_id: z.string(),
    object: z.literal("guardrail_rule"),
    customer_id: z.string(),
    ...timestamps,
  })
  .meta({ id: "RuleResponse" });
export const ruleListResponse = listResponse(ruleResponse, "RuleListResponse");

export const exportResponse = z
  .looseObject({
    id: z.string(),
    object: z.literal("compliance_export"),
    customer_id: z.string(),
    kind: z.string(),
    from: z.string(),
    to: z.string(),
    status: z.string(),
    download_url: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "ExportResponse" });
export const exportListResponse = listResponse(exportResponse, "ExportListResponse");

export const legalHoldResponse = z
  .looseObject({
    id: z.string(),
    object: z.literal("legal_hold"),
    customer_id: z.string(),
    from: z.string(),
    to: z.string(),
    reason: z.string(),
    active: z.boolean(),
    created_at: z.string(),
    released_at: z.string().nullable(),
  })
  .meta({ id: "LegalHoldResponse" });
export const legalHoldListResponse = listResponse(legalHoldResponse, "LegalHoldListResponse");

/** A JSON object whose fields are documented in docs/ (free-form in the spec). */
function documentedObject(id: string, description: string) {
  return z.looseObject({}).meta({ id, description });
}

export const auditRecordListResponse = listResponse(
  documentedObject("AuditRecord", "One audit record (docs/audit.md)"),
  "AuditRecordListResponse",
);
export const auditVerificationResponse = documentedObject(
  "AuditVerificationResponse",
  "Result of verifying a customer's hash chain",
);
export const retentionResponse = documentedObject("RetentionResponse", "Retention settings");
export const retentionReportResponse = documentedObject(
  "RetentionReportResponse",
  "Point-in-time retention report",
);
export const routeConfig = documentedObject("RouteConfig", "A smart route");
export const routeListResponse = listResponse(routeConfig, "RouteListResponse");
export const routingDecision = documentedObject("RoutingDecision", "A dry-run routing decision");
export const abResults = documentedObject("ABResultsResponse", "A/B results of a route");
export const budgetStatus = documentedObject("BudgetStatusResponse", "Spend, remaining, forecast");
export const budgetConfig = documentedObject("BudgetConfigResponse", "Budget configuration");
export const testRuleResponse = documentedObject("TestRuleResponse", "A rule tried on a sample");
export const guardrailPolicy = documentedObject("GuardrailPolicyResponse", "Guardrail policy");
export const policyTemplates = documentedObject(
  "PolicyTemplateListResponse",
  "Compliance policy templates",
);
export const catalogResponse = documentedObject("CatalogResponse", "Model catalogue with tiers");
export const recommendationsResponse = documentedObject(
  "RecommendationsResponse",
  "Usage-based optimisation hints",
);
export const readinessResponse = documentedObject("ReadinessResponse", "Readiness checks");
export const chatCompletionResponse = documentedObject(
  "CreateChatCompletionResponse",
  "OpenAI chat completion (or text/event-stream when stream is true)",
);
export const embeddingResponse = documentedObject("CreateEmbeddingResponse", "OpenAI embeddings");
export const transcriptionResponse = documentedObject(
  "CreateTranscriptionResponse",
  "OpenAI transcription",
);
