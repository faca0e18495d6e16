/**
 * The data plane's native REST API as the operator uses it: the wire types (snake_case request
 * and response bodies) and the API's interface. Adjust the contract here; `native-client.ts` is
 * its HTTP implementation.
 */
export interface ModelBody {
  name: string;
  version: string;
  architecture?: string;
  modality: string;
  aliases: string[];
  required_tier: string;
  pricing?: { input_per_1k: number; output_per_1k: number };
  context_window?: number;
  engine_artifacts: Record<string, unknown>;
}
export interface NativeModel extends Partial<ModelBody> {
  id: string;
  status?: string;
}

export interface Scaling {
  min_replicas: number;
  max_replicas: number;
  target_concurrency?: number;
}
export type NativeDeploymentStatus =
  "pending" | "provisioning" | "running" | "failed" | "terminated";
export interface NativeDeployment {
  id: string;
  model_id?: string;
  status: NativeDeploymentStatus;
  endpoint_url?: string | null;
  scaling?: Partial<Scaling>;
  reason?: string | null;
}
export interface DeploymentPatch {
  status?: NativeDeploymentStatus;
  endpoint_url?: string;
  reason?: string;
  scaling?: Scaling;
}

export interface RouteBody {
  customer_id: string;
  name?: string;
  match: { model: string; headers?: Record<string, string> };
  strategy: string;
  targets: { model: string; weight: number }[];
  enabled: boolean;
}
export interface RuleBody {
  customer_id: string;
  name: string;
  kind: string;
  pattern?: string;
  keywords?: string[];
  entities?: string[];
  max_tokens?: number;
  action: string;
  applies_to: string;
  enabled: boolean;
}
export interface LegalHoldBody {
  /** Sent as the customer_id query parameter, not in the (strict) JSON body. */
  customer_id: string;
  from: string;
  to: string;
  reason: string;
  scope?: { model?: string; key_ids?: string[] };
}
export interface NativeLegalHold extends Partial<LegalHoldBody> {
  id: string;
  active: boolean;
}
export type Native<T> = Partial<T> & { id: string };

/** CRUD of one native resource kind; get and delete treat 404 as "absent". */
export interface NativeCrud<Body, Item> {
  create(body: Body): Promise<Item>;
  get(id: string): Promise<Item | undefined>;
  patch(id: string, body: Partial<Body>): Promise<Item>;
  delete(id: string): Promise<void>;
}

export interface NativeApi {
  models: NativeCrud<ModelBody, NativeModel> & {
    find(name: string, version: string): Promise<NativeModel | undefined>;
  };
  deployments: {
    create(body: { model_id: string; scaling: Scaling }): Promise<NativeDeployment>;
    get(id: string): Promise<NativeDeployment | undefined>;
    patch(id: string, body: DeploymentPatch): Promise<NativeDeployment>;
    delete(id: string): Promise<void>;
  };
  routes: NativeCrud<RouteBody, Native<RouteBody>>;
  guardrailRules: NativeCrud<RuleBody, Native<RuleBody>>;
  legalHolds: {
    create(body: LegalHoldBody): Promise<NativeLegalHold>;
    /** The holds of one customer (an admin key may list any customer's). */
    list(customerId: string): Promise<NativeLegalHold[]>;
    delete(id: string): Promise<void>;
  };
}
