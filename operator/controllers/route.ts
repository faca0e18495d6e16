import { routeSpec, type RouteSpec } from "../crd/specs.js";
import { ROUTES } from "../kube/resources.js";
import type { NativeApi } from "../native/native-api.js";
import { routeBody } from "../native/native-request-bodies.js";
import type { Controller } from "../runtime/controller.js";
import { nativeObjectController } from "./native-object-controller.js";

/** Route CR -> /api/v1/routes. The native name defaults to the CR's name. */
export function routeController(native: NativeApi): Controller<RouteSpec> {
  return nativeObjectController({
    resource: ROUTES,
    schema: routeSpec,
    idField: "routeId",
    api: native.routes,
    toBody: (spec, name) => routeBody(spec, name),
  });
}
