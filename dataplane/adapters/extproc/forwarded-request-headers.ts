import type {
  DeepPartial,
  HeaderMutation,
} from "../../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import { setHeaders } from "./header-map.js";

/** Headers only the gateway may set on the forwarded request: a caller's copies are dropped. */
const OUR_REQUEST_HEADERS = [
  "x-evident-upstream",
  "x-evident-upstream-host",
  "x-evident-customer-id",
  "x-evident-classification",
];

/**
 * The request headers' mutation for an inference call: the request id is set, the gateway's own
 * headers (and `authorization`, when ext_proc removes it) are dropped.
 */
export function forwardedRequestHeaderMutation(
  requestId: string,
  removeAuthorization: boolean,
): DeepPartial<HeaderMutation> {
  const remove = [...OUR_REQUEST_HEADERS];
  if (removeAuthorization) remove.push("authorization");
  return {
    setHeaders: setHeaders({ "x-request-id": requestId }),
    removeHeaders: remove,
  };
}
