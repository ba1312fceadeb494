/**
 * The verified generator's progress as a line now and then, for logs and terminals without a bar:
 * scenarios built, attempts made, seconds since the start. A server that gives little (slow
 * tools, results nothing can be asked of) is seen to be tried, not hung.
 */

/** Seconds between lines. */
export const PROGRESS_LINE_EVERY_S = 30;

export function progressLines(
  label: string,
  write: (line: string) => void,
  everyS = PROGRESS_LINE_EVERY_S,
  now: () => number = Date.now,
): (done: number, total: number, tried?: number) => void {
  const t0 = now();
  let last = t0;
  return (done, total, tried = 0) => {
    const t = now();
    if (t - last < everyS * 1000) return;
    last = t;
    write(`${label}: ${done} of ${total} built, ${tried} tried (${Math.round((t - t0) / 1000)} s)`);
  };
}
