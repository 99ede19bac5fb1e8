import { describe, expect, it } from "vitest";
import { createBatcher } from "../../../runtime/guard/batcher.js";

/** A write that records each batch and finishes only when released. */
function gatedWrite() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const write = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => gates.push(resolve));
    return items.map((n) => (n < 0 ? new Error(`negative ${n}`) : n * 10));
  };
  const releaseAll = async () => {
    while (gates.length > 0) gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { write, batches, gates, releaseAll };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("createBatcher", () => {
  it("writes the calls of one turn together, and those made while a batch is written in the next one", async () => {
    const w = gatedWrite();
    const batcher = createBatcher(w.write, { maxBatch: 32 });
    const first = [1, 2, 3].map((n) => batcher.add(n));
    await turn();
    expect(w.batches).toEqual([[1, 2, 3]]);
    const second = [4, 5].map((n) => batcher.add(n));
    await turn();
    expect(w.batches).toHaveLength(1);
    await w.releaseAll();
    expect(await Promise.all(first)).toEqual([10, 20, 30]);
    expect(w.batches).toEqual([[1, 2, 3], [4, 5]]);
    await w.releaseAll();
    expect(await Promise.all(second)).toEqual([40, 50]);
  });

  it("keeps at most maxInFlight batches of at most maxBatch items in flight", async () => {
    const w = gatedWrite();
    const batcher = createBatcher(w.write, { maxBatch: 2, maxInFlight: 2 });
    const all = [1, 2, 3, 4, 5, 6, 7].map((n) => batcher.add(n));
    await turn();
    expect(w.batches).toEqual([[1, 2], [3, 4]]);
    await w.releaseAll();
    expect(w.batches).toEqual([[1, 2], [3, 4], [5, 6], [7]]);
    await w.releaseAll();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50, 60, 70]);
  });

  it("rejects only the caller whose result is an Error, and the whole batch when the write throws", async () => {
    const w = gatedWrite();
    const batcher = createBatcher(w.write, { maxBatch: 32 });
    const results = Promise.allSettled([batcher.add(1), batcher.add(-2)]);
    await turn();
    await w.releaseAll();
    const [one, two] = await results;
    expect(one).toEqual({ status: "fulfilled", value: 10 });
    expect(two).toMatchObject({ status: "rejected", reason: { message: "negative -2" } });

    const failing = createBatcher<number, number>(() => Promise.reject(new Error("connection lost")), { maxBatch: 32 });
    const failed = await Promise.allSettled([failing.add(1), failing.add(2)]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });

  it("drain waits until everything queued so far is written", async () => {
    const written: number[] = [];
    const batcher = createBatcher(
      async (items: number[]) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        written.push(...items);
        return items;
      },
      { maxBatch: 2 },
    );
    for (const n of [1, 2, 3, 4, 5]) void batcher.add(n);
    await batcher.drain();
    expect(written).toEqual([1, 2, 3, 4, 5]);
  });
});
