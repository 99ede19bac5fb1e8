// Group commit in the application: calls that arrive while a batch is being written wait and go together in the
// next one, so N concurrent deliveries cost one statement, one commit and one disk flush instead of N that queue
// behind each other at the server (or, on PGlite, on the event loop). An idle batcher adds no delay: the first call
// is written as soon as the current turn of the event loop ends.

export interface Batcher<I, O> {
  /** Queues `item`; settles with its own result when its batch is written. */
  add(item: I): Promise<O>;
  /** Resolves once every item queued so far has been written (or has failed). */
  drain(): Promise<void>;
}

interface Queued<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * `write` gets at most `maxBatch` items and answers one result per item, in order (an Error result rejects only its
 * own caller; a thrown error rejects the whole batch). At most `maxInFlight` batches are written at a time.
 */
export function createBatcher<I, O>(
  write: (items: I[]) => Promise<(O | Error)[]>,
  options: { maxBatch: number; maxInFlight?: number },
): Batcher<I, O> {
  const maxInFlight = options.maxInFlight ?? 1;
  let queue: Queued<I, O>[] = [];
  const writing = new Set<Promise<void>>();
  let scheduled = false;

  const writeBatch = async (batch: Queued<I, O>[]): Promise<void> => {
    try {
      const results = await write(batch.map((queued) => queued.item));
      batch.forEach((queued, i) => {
        const result = results[i];
        if (result instanceof Error) queued.reject(result);
        else queued.resolve(result as O);
      });
    } catch (error) {
      for (const queued of batch) queued.reject(error);
    }
  };

  /** Starts batches while there is work and room; each one, when done, starts the next. */
  const start = () => {
    scheduled = false;
    while (queue.length > 0 && writing.size < maxInFlight) {
      const batch = queue.slice(0, options.maxBatch);
      queue = queue.slice(batch.length);
      const written: Promise<void> = writeBatch(batch).finally(() => {
        writing.delete(written);
        start();
      });
      writing.add(written);
    }
  };

  return {
    add(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        // Written right after this turn, so the calls made in the same turn share the batch; while all batches in
        // flight are busy, the rest wait and go together in the next one.
        if (writing.size < maxInFlight && !scheduled) {
          scheduled = true;
          setImmediate(start);
        }
      });
    },
    async drain() {
      while (writing.size > 0 || scheduled || queue.length > 0) {
        start();
        await Promise.allSettled([...writing]);
      }
    },
  };
}

/**
 * Writes `items` together; when the statement fails for something other than an outage (a member's data the database
 * refuses), writes each alone, so only that member fails and the others keep their answers. An outage fails them all
 * at once: none would pass alone.
 */
export async function eachAloneOnRefusal<I, O>(
  items: I[],
  write: (items: I[]) => Promise<(O | Error)[]>,
  isOutage: (error: unknown) => boolean,
): Promise<(O | Error)[]> {
  try {
    return await write(items);
  } catch (error) {
    if (items.length === 1 || isOutage(error)) throw error;
    return Promise.all(
      items.map(async (item) => {
        try {
          const [answer] = await write([item]);
          return answer as O | Error;
        } catch (alone) {
          return alone instanceof Error ? alone : new Error(String(alone));
        }
      }),
    );
  }
}
