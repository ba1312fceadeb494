/**
 * One lane for everything that touches the models, in arrival order. Generation jobs (one per
 * choice) that are waiting together for the same model run as ONE batch of up to `maxBatch`
 * rows (static batching: a batch runs to its end, then the next forms from what queued
 * meanwhile); adapter loads and unloads run alone, so an adapter is never swapped under a
 * generation in flight. Simple and correct over clever.
 */
import type { StepEngine } from "./engine.js";
import { generateBatch, type GenerateParams, type GenerateResult, type TextCodec } from "./generate.js";

type Job =
  | { kind: "exclusive"; fn: () => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }
  | { kind: "generate"; model: () => StepEngine; codec: TextCodec; params: GenerateParams; resolve: (v: GenerateResult) => void; reject: (e: unknown) => void };

export class Scheduler {
  private readonly jobs: Job[] = [];
  private running = false;
  /** batches run so far and their sizes, for the log and tests */
  readonly batchSizes: number[] = [];

  constructor(private readonly maxBatch = 8) {
    if (!(Number.isInteger(maxBatch) && maxBatch >= 1)) throw new Error(`max batch must be an integer >= 1, got ${maxBatch}`);
  }

  /** Runs `fn` alone, after everything queued before it. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ kind: "exclusive", fn, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  /** Generates one sequence, batched with others queued for the same engine. `model` is asked
   *  for its engine when the batch forms, so a request queued behind an adapter reload runs on
   *  the new weights (and one behind an unload gets that function's error). */
  generate(model: () => StepEngine, codec: TextCodec, params: GenerateParams): Promise<GenerateResult> {
    return new Promise<GenerateResult>((resolve, reject) => {
      this.jobs.push({ kind: "generate", model, codec, params, resolve, reject });
      this.pump();
    });
  }

  /** Jobs waiting or running. */
  get depth(): number {
    return this.jobs.length + (this.running ? 1 : 0);
  }

  private pump(): void {
    if (this.running || this.jobs.length === 0) return;
    this.running = true;
    // start on the next tick, so requests that arrive together are batched together
    setImmediate(() => {
      void this.runNext().finally(() => {
        this.running = false;
        this.pump();
      });
    });
  }

  private async runNext(): Promise<void> {
    const head = this.jobs[0];
    if (head.kind === "exclusive") {
      this.jobs.shift();
      await head.fn().then(head.resolve, head.reject);
      return;
    }
    // the head's engine: take its generation jobs up to the first exclusive job
    const engineOf = (j: Extract<Job, { kind: "generate" }>): StepEngine | null => {
      try {
        return j.model();
      } catch (e) {
        this.jobs.splice(this.jobs.indexOf(j), 1);
        j.reject(e);
        return null;
      }
    };
    const engine = engineOf(head);
    if (!engine) return;
    const limit = Math.min(this.maxBatch, engine.maxBatch);
    const batch: Array<Extract<Job, { kind: "generate" }>> = [];
    for (let i = 0; i < this.jobs.length && batch.length < limit; ) {
      const j = this.jobs[i];
      if (j.kind === "exclusive") break;
      const e: StepEngine | null = j === head ? engine : engineOf(j);
      if (e === null) continue; // rejected and removed
      if (e === engine) {
        batch.push(j);
        this.jobs.splice(i, 1);
      } else i++;
    }
    this.batchSizes.push(batch.length);
    try {
      const results = await generateBatch(engine, head.codec, batch.map((j) => j.params));
      batch.forEach((j, i) => j.resolve(results[i]));
    } catch (e) {
      for (const j of batch) j.reject(e);
    }
  }
}
