import type { HeaderMap, HeaderValueOption } from "../../../proto/gen/envoy/config/core/v3/base.js";
import type { DeepPartial } from "../../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";

/** Headers of an ext_proc message, lower-case names; Envoy sends values in `raw_value`. */
export function readHeaderMap(map: HeaderMap | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of map?.headers ?? []) {
    const value = h.rawValue.length > 0 ? h.rawValue.toString("utf8") : h.value;
    const name = h.key.toLowerCase();
    out[name] = out[name] === undefined ? value : `${out[name]},${value}`;
  }
  return out;
}

/** `set_headers` entries (overwrite). Envoy reads only `raw_value` in ext_proc mutations. */
export function setHeaders(headers: Record<string, string>): DeepPartial<HeaderValueOption>[] {
  return Object.entries(headers).map(([key, value]) => ({
    header: { key, rawValue: Buffer.from(value, "utf8") },
  }));
}
