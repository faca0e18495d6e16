import { LabelTrie } from "../../observability/label-trie.js";
import type {
  CounterFamily,
  CounterSeries,
  HistogramFamily,
  HistogramSeries,
} from "../../observability/series-families.js";

/** The route label of a request no route matched (404, 405, errors before routing). */
export const UNMATCHED = "unmatched";

export type RequestLabelName = "route" | "method" | "status";

export interface RequestMetricLabels {
  route: string;
  method: string;
  status: string;
}

/** One route, method and status: its labels (for the request log) and its two metric series. */
export interface RequestSeries {
  labels: RequestMetricLabels;
  requests: CounterSeries;
  duration: HistogramSeries;
}

/** How many label sets are kept; past it, new ones are built per request (never unbounded). */
const MAX_LABEL_SETS = 4096;

/** Status codes as label values, made once (100 to 599). */
const STATUS_TEXT = Array.from({ length: 600 }, (_, status) => String(status));

/**
 * The HTTP request metrics' label sets, one per route, method and status, found without building
 * a key or labels object per request (routes and methods come from the route table, statuses are
 * numbers; a request answered "unmatched" keeps its method, which Node's parser limits to known
 * methods).
 */
export class RequestLabels {
  private readonly sets = new LabelTrie<RequestSeries>(3, MAX_LABEL_SETS);

  constructor(
    private readonly requests: CounterFamily<RequestLabelName>,
    private readonly duration: HistogramFamily<RequestLabelName>,
  ) {}

  of(route: string, method: string, status: number): RequestSeries {
    const statusText = STATUS_TEXT[status] ?? String(status);
    let found = this.sets.find(route, method, statusText);
    if (found === undefined) {
      found = {
        labels: { route, method, status: statusText },
        requests: this.requests.series(route, method, statusText),
        duration: this.duration.series(route, method, statusText),
      };
      this.sets.add(found, route, method, statusText);
    }
    return found;
  }
}
