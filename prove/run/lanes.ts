// Work items spread over a number of lanes, each lane taking the next item as soon as it is free. Items start in
// rank order (lowest first), so the longest can start first and no lane is left running one alone at the end;
// the results stay in the items' order.
export async function runInLanes<T, R>(items: readonly T[], lanes: number, rank: (item: T) => number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const order = items.map((_, index) => index).sort((a, b) => rank(items[a] as T) - rank(items[b] as T));
  let next = 0;
  const lane = async () => {
    while (next < order.length) {
      const index = order[next++] as number;
      results[index] = await run(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}
