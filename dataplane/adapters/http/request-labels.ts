/** The route label of a request no route matched (404, 405, errors before routing). */
export const UNMATCHED = "unmatched";

export interface RequestMetricLabels {
  route: string;
  method: string;
  status: string;
}

/** How many label sets are kept; past it, new ones are built per request (never unbounded). */
const MAX_LABEL_SETS = 4096;

/**
 * The HTTP request metrics' label objects, one per route, method and status, built once and
 * reused (routes and methods come from the route table, statuses are numbers; a request answered
 * "unmatched" keeps its method, which Node's parser limits to known methods).
 */
export class RequestLabels {
  private readonly sets = new Map<string, RequestMetricLabels>();

  of(route: string, method: string, status: number): RequestMetricLabels {
    const key = `${status} ${method} ${route}`;
    let labels = this.sets.get(key);
    if (labels === undefined) {
      labels = { route, method, status: String(status) };
      if (this.sets.size < MAX_LABEL_SETS) this.sets.set(key, labels);
    }
    return labels;
  }
}
