/** A binary min-heap: O(log n) push and pop, O(1) peek. Used for deadlines and for redelivery order. */
export class MinHeap<T> {
  readonly #items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentItem = items[parent] as T;
      if (!this.before(item, parentItem)) break;
      items[index] = parentItem;
      index = parent;
    }
    items[index] = item;
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    let index = 0;
    const length = items.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && this.before(items[right] as T, items[left] as T)) child = right;
      const childItem = items[child] as T;
      if (!this.before(childItem, last)) break;
      items[index] = childItem;
      index = child;
    }
    items[index] = last;
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }
}
