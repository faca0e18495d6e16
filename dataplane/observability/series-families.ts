import {
  Counter,
  Histogram,
  type LabelValues,
  type MetricObjectWithValues,
  type MetricValue,
  type MetricValueWithName,
  type Registry,
} from "prom-client";
import { LabelTrie } from "./label-trie.js";

/**
 * Counters and histograms whose per-call cost is a map lookup per label and an addition.
 *
 * prom-client's `inc(labels, v)` / `observe(labels, v)` build and hash a labels object on every
 * call. A family keeps, per label set, a slot holding a reference to prom-client's own series
 * entry (the object its scrape reads), found through a `LabelTrie` from the label values. The
 * first call for a set goes through prom-client's public `inc`/`observe` (which creates the entry,
 * in first-seen order, with the labels in label-name order); later calls add to that entry in
 * place, with the same arithmetic in the same order. So a scrape, at any moment, reads the same
 * names, labels, values, buckets and HELP/TYPE it would without the family, and there is nothing
 * to flush. Anything unusual (a value prom-client would refuse or treat specially, a label value
 * missing, more label sets than the trie keeps, a `reset()` of the metric) takes prom-client's own
 * path. This relies on prom-client 15's series entries (`hashMap`, pinned in package.json);
 * series-families.test.ts and call-metrics.test.ts compare the exposition with plain prom-client.
 */

/** One label set of a counter. */
export interface CounterSeries {
  inc(value?: number): void;
}

/** One label set of a histogram. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** Label sets a family keeps slots for; past it, calls build their labels (still counted). */
const DEFAULT_CAPACITY = 4096;

interface FamilyConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
  /** At most this many label sets get a slot (default 4096). */
  capacity?: number;
}

/** prom-client 15's series storage: entries by a string of the sorted label names and values. */
interface SeriesStore<E> {
  hashMap: Record<string, E | undefined>;
}
interface CounterEntry {
  value: number;
}
interface HistogramEntry {
  sum: number;
  count: number;
  bucketValues: Record<string, number>;
}

abstract class SeriesFamily<L extends string, S> {
  private readonly slots: LabelTrie<S>;
  private readonly sortedNames: readonly L[];

  constructor(
    private readonly labelNames: readonly L[],
    capacity: number,
  ) {
    this.slots = new LabelTrie<S>(labelNames.length, capacity);
    this.sortedNames = [...labelNames].sort();
  }

  /** The series of these label values, given in label-name order. */
  series(a?: string, b?: string, c?: string, d?: string): S {
    return this.slots.find(a, b, c, d) ?? this.added(a, b, c, d);
  }

  /**
   * A label set not seen before (or past the capacity): its labels object, in label-name order.
   * Kept out of `series`, so that no closure or array of this path is made on every call.
   */
  private added(a?: string, b?: string, c?: string, d?: string): S {
    const values = [a, b, c, d];
    const labels: Partial<Record<L, string>> = {};
    for (let i = 0; i < this.labelNames.length; i++) labels[this.labelNames[i] as L] = values[i];
    const slot = this.slotFor(labels, this.keyOf(labels));
    this.slots.add(slot, a, b, c, d);
    return slot;
  }

  protected abstract slotFor(labels: LabelValues<L>, key: string): S;

  /** The key prom-client files a label set under (its hashObject with sorted label names). */
  private keyOf(labels: Partial<Record<L, string>>): string {
    let key = "";
    for (const name of this.sortedNames) {
      const value = labels[name];
      if (value !== undefined) key += `${name}:${value},`;
    }
    return key;
  }
}

export class CounterFamily<L extends string> extends SeriesFamily<L, CounterSeries> {
  private readonly counter: Counter<L>;

  constructor(config: FamilyConfig<L>) {
    super(config.labelNames, config.capacity ?? DEFAULT_CAPACITY);
    const { name, help, labelNames, registers } = config;
    this.counter = new Counter({ name, help, labelNames, registers });
  }

  /** The counter's series as prom-client reports them. */
  get(): Promise<MetricObjectWithValues<MetricValue<L>>> {
    return this.counter.get();
  }

  protected slotFor(labels: LabelValues<L>, key: string): CounterSeries {
    const counter = this.counter;
    const store = counter as unknown as SeriesStore<CounterEntry>;
    let map: SeriesStore<CounterEntry>["hashMap"] | undefined;
    let entry: CounterEntry | undefined;
    return {
      inc(value = 1): void {
        // prom-client refuses negative and infinite values and adds NaN: its own path does that.
        if (entry !== undefined && map === store.hashMap && value >= 0 && value < Infinity) {
          entry.value += value;
          return;
        }
        counter.inc(labels, value);
        map = store.hashMap;
        entry = map[key];
      },
    };
  }
}

export class HistogramFamily<L extends string> extends SeriesFamily<L, HistogramSeries> {
  private readonly histogram: Histogram<L>;
  private readonly bounds: readonly number[];
  /** Each bound as the property key prom-client counts it under. */
  private readonly boundKeys: readonly string[];

  constructor(config: FamilyConfig<L> & { buckets: number[] }) {
    super(config.labelNames, config.capacity ?? DEFAULT_CAPACITY);
    const { name, help, labelNames, buckets, registers } = config;
    this.histogram = new Histogram({ name, help, labelNames, buckets, registers });
    this.bounds = [...config.buckets];
    this.boundKeys = this.bounds.map(String);
  }

  /** The histogram's series as prom-client reports them. */
  get(): Promise<MetricObjectWithValues<MetricValueWithName<L>>> {
    return this.histogram.get();
  }

  protected slotFor(labels: LabelValues<L>, key: string): HistogramSeries {
    const { histogram, bounds, boundKeys } = this;
    const store = histogram as unknown as SeriesStore<HistogramEntry>;
    let map: SeriesStore<HistogramEntry>["hashMap"] | undefined;
    let entry: HistogramEntry | undefined;
    return {
      observe(value: number): void {
        if (entry !== undefined && map === store.hashMap && Number.isFinite(value)) {
          entry.sum += value;
          entry.count += 1;
          // The first bound at or above the value; above them all only +Inf (the count) has it.
          for (let i = 0; i < bounds.length; i++) {
            if (value <= (bounds[i] as number)) {
              (entry.bucketValues[boundKeys[i] as string] as number) += 1;
              break;
            }
          }
          return;
        }
        histogram.observe(labels, value);
        map = store.hashMap;
        entry = map[key];
      },
    };
  }
}
