/**
 * A counting semaphore for in-flight tool calls: rollouts run many calls in parallel, and a
 * server (or the machine) should not see more than `limit` at once. Waiters are served in FIFO
 * order; a waiter whose AbortSignal fires leaves the queue without taking a slot.
 */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency limit must be an integer >= 1, got ${limit}`);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    const release = once(() => {
      this.active--;
      this.waiters.shift()?.();
    });
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener("abort", onAbort);
        this.active++;
        resolve(release);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(go);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason ?? new Error("aborted"));
      };
      this.waiters.push(go);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
