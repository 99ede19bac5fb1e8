import { invalidRequest } from "./stripe-failures.js";

/** Bounds on `created` (unix seconds), from `created=123` or `created[gte]=...`. */
export interface CreatedRange {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

export interface ListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  created?: CreatedRange;
}

interface Entry<T> {
  object: T;
  seq: number;
}

interface Listable {
  id: string;
  /** Absent on objects that name no customer (an invoice payment): they are listed through other index keys. */
  customer?: string | null;
}

/**
 * Objects of one kind in creation order, indexed by id, by customer and optionally by any other key
 * (a PaymentIntent's metadata pairs), so reads touch only the rows they return, never the whole table.
 */
export class Collection<T extends Listable> {
  readonly #byId = new Map<string, Entry<T>>();
  readonly #all: Entry<T>[] = [];
  readonly #byIndex = new Map<string, Entry<T>[]>();
  #seq = 0;
  /** While `created` never went backwards, a newest-first scan can stop at the first row below a lower bound. */
  #createdMonotonic = true;

  constructor(
    private readonly indexKeys: (object: T) => readonly string[] = () => [],
    private readonly createdOf: (object: T) => number = (object) => (object as T & { created: number }).created,
  ) {}

  add(object: T): void {
    const last = this.#all[this.#all.length - 1];
    if (last && this.createdOf(object) < this.createdOf(last.object)) this.#createdMonotonic = false;
    const entry = { object, seq: ++this.#seq };
    this.#byId.set(object.id, entry);
    this.#all.push(entry);
    const keys = object.customer ? [customerKey(object.customer), ...this.indexKeys(object)] : this.indexKeys(object);
    for (const key of keys) {
      const bucket = this.#byIndex.get(key);
      if (bucket) bucket.push(entry);
      else this.#byIndex.set(key, [entry]);
    }
  }

  /** Adds index keys to an object already stored (an invoice item moving onto an invoice). */
  reindex(object: T, keys: readonly string[]): void {
    const entry = this.#byId.get(object.id);
    if (!entry) return;
    for (const key of keys) {
      const bucket = this.#byIndex.get(key) ?? [];
      if (bucket.includes(entry)) continue;
      // Keep ascending seq order so list() and scan() stay correct.
      const at = bucket.findIndex((other) => other.seq > entry.seq);
      if (at === -1) bucket.push(entry);
      else bucket.splice(at, 0, entry);
      this.#byIndex.set(key, bucket);
    }
  }

  get(id: string): T | undefined {
    return this.#byId.get(id)?.object;
  }

  /** Objects under an index key, oldest first. */
  indexed(key: string): T[] {
    return this.#rows(key).map((entry) => entry.object);
  }

  /** Oldest first. */
  all(customer?: string): T[] {
    return this.#rows(customer === undefined ? undefined : customerKey(customer)).map((entry) => entry.object);
  }

  /** Stripe's list semantics: newest first, cursor pagination, `has_more`. */
  list(query: ListQuery, filter: { customer?: string; index?: string; where?: (object: T) => boolean } = {}): { data: T[]; hasMore: boolean } {
    const rows = this.#rows(filter.customer !== undefined ? customerKey(filter.customer) : filter.index);
    const accepts = (object: T) => inRange(this.createdOf(object), query.created) && (!filter.where || filter.where(object));
    const data: T[] = [];
    if (query.endingBefore !== undefined) {
      // The page just newer than the cursor, still returned newest first.
      let index = upperBound(rows, this.#cursor(query.endingBefore, "ending_before").seq);
      for (; index < rows.length && data.length <= query.limit; index++) {
        const object = (rows[index] as Entry<T>).object;
        if (accepts(object)) data.push(object);
      }
      const hasMore = data.length > query.limit;
      return { data: data.slice(0, query.limit).reverse(), hasMore };
    }
    let index = rows.length - 1;
    if (query.startingAfter !== undefined) index = upperBound(rows, this.#cursor(query.startingAfter, "starting_after").seq - 1) - 1;
    const floor = lowerBoundOf(query.created);
    for (; index >= 0 && data.length <= query.limit; index--) {
      const object = (rows[index] as Entry<T>).object;
      if (this.#createdMonotonic && floor !== undefined && this.createdOf(object) < floor) break;
      if (accepts(object)) data.push(object);
    }
    const hasMore = data.length > query.limit;
    return { data: data.slice(0, query.limit), hasMore };
  }

  /** Newest first from just below `beforeSeq`, for search pagination; returns the sequence of the last row. */
  scan(key: string | undefined, beforeSeq: number, limit: number, where: (object: T) => boolean): { data: T[]; lastSeq: number | undefined; hasMore: boolean } {
    const rows = this.#rows(key);
    const data: T[] = [];
    let lastSeq: number | undefined;
    let hasMore = false;
    for (let index = upperBound(rows, beforeSeq - 1) - 1; index >= 0; index--) {
      const entry = rows[index] as Entry<T>;
      if (!where(entry.object)) continue;
      if (data.length === limit) {
        hasMore = true;
        break;
      }
      data.push(entry.object);
      lastSeq = entry.seq;
    }
    return { data, lastSeq, hasMore };
  }

  #rows(key: string | undefined): Entry<T>[] {
    return key === undefined ? this.#all : (this.#byIndex.get(key) ?? []);
  }

  #cursor(id: string, param: string): Entry<T> {
    const entry = this.#byId.get(id);
    if (!entry) throw invalidRequest(`No such object: '${id}'`, { code: "resource_missing", param });
    return entry;
  }
}

export function customerKey(customer: string): string {
  return `customer\u0000${customer}`;
}

/** First index whose seq is greater than `seq` (rows are in ascending seq). */
function upperBound<T>(rows: Entry<T>[], seq: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((rows[mid] as Entry<T>).seq <= seq) low = mid + 1;
    else high = mid;
  }
  return low;
}

function inRange(created: number, range: CreatedRange | undefined): boolean {
  if (!range) return true;
  return (
    (range.gt === undefined || created > range.gt) &&
    (range.gte === undefined || created >= range.gte) &&
    (range.lt === undefined || created < range.lt) &&
    (range.lte === undefined || created <= range.lte)
  );
}

function lowerBoundOf(range: CreatedRange | undefined): number | undefined {
  if (!range) return undefined;
  if (range.gte !== undefined) return range.gte;
  if (range.gt !== undefined) return range.gt + 1;
  return undefined;
}
