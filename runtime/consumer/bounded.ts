// Closing with a bound: a close that hangs (a broker that never answers) must not hang the consumer's caller.

/** Waits for `promise`, at most `ms`; its failure is ignored. */
export async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
