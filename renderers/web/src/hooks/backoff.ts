/** How long to wait before retry `attempt` (1, 2, ...): doubling from half a second to 10 s. */
export function backoffMs(attempt: number): number {
  return Math.min(10_000, 500 * 2 ** Math.max(0, attempt - 1));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

/** Whether `stop` has been aborted (read afresh: it changes while a call is awaited). */
export function stopped(stop: AbortController): boolean {
  return stop.signal.aborted;
}
