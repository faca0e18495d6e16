import type { Endpoint } from "../../core/inference-call.js";

/** Paths that answer without a key (probes), as on the REST façade. */
const PUBLIC_PATHS = new Set(["/healthz", "/readyz"]);

/** The inference endpoints the Envoy adapters enforce, by path (no query string). */
const INFERENCE_PATHS: Readonly<Record<string, Endpoint>> = {
  "/v1/chat/completions": "chat.completions",
  "/v1/embeddings": "embeddings",
  "/v1/audio/transcriptions": "audio.transcriptions",
};

/** The path without its query string, with one trailing slash ignored (as the REST router does). */
export function pathOnly(path: string): string {
  const bare = path.split("?")[0] ?? path;
  return bare.length > 1 && bare.endsWith("/") ? bare.slice(0, -1) : bare;
}

export function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.has(pathOnly(path));
}

export function inferenceEndpointOf(path: string): Endpoint | undefined {
  return INFERENCE_PATHS[pathOnly(path)];
}

/** Paths under /v1/ carry a model (the tier check needs it). */
export function isInferencePath(path: string): boolean {
  return pathOnly(path).startsWith("/v1/");
}
