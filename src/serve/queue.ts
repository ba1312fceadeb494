/**
 * One lane for everything that touches the models, in arrival order. Generation jobs (one per
 * choice) that are waiting together for the same model run as ONE batch of up to `maxBatch`
 * rows; jobs for that model that queue while it runs join it between steps (continuous
 * batching, where the engine can add rows), as long as nothing else waits before them: another
 * model's request or an adapter load stops the joining, the batch drains, and that job runs
 * next. Adapter loads and unloads run alone, so an adapter is never swapped under a generation
 * in flight. With `continuous` off, a batch runs to its end and the next forms from what queued
 * meanwhile (static batching).
 */
import type { StepEngine } from "./engine.js";
import { runBatch, type BatchMember, type GenerateParams, type GenerateResult, type TextCodec } from "./generate.js";

type Job =
  | { kind: "exclusive"; fn: () => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }
  | { kind: "generate"; model: () => StepEngine; codec: TextCodec; params: GenerateParams; resolve: (v: GenerateResult) => void; reject: (e: unknown) => void };
type GenerateJob = Extract<Job, { kind: "generate" }>;

const member = (j: GenerateJob): BatchMember => ({ params: j.params, done: j.resolve, fail: j.reject });

export class Scheduler {
  private readonly jobs: Job[] = [];
  private running = false;
  /** batches run so far and their sizes when they started, for the log and tests */
  readonly batchSizes: number[] = [];
  /** requests that joined a batch already running */
  joined = 0;

  constructor(
    private readonly maxBatch = 8,
    private readonly continuous = true,
  ) {
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
    const engineOf = (j: GenerateJob): StepEngine | null => {
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
    const batch: GenerateJob[] = [];
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
    // joiners come from the front of the queue only, so nothing waits behind a busy model forever
    const admit = (room: number): BatchMember[] => {
      const joining: GenerateJob[] = [];
      while (joining.length < room && this.jobs.length > 0) {
        const j = this.jobs[0];
        if (j.kind !== "generate") break;
        const e = engineOf(j);
        if (e === null) continue;
        if (e !== engine) break;
        joining.push(j);
        this.jobs.shift();
      }
      this.joined += joining.length;
      return joining.map(member);
    };
    await runBatch(engine, head.codec, batch.map(member), { admit: this.continuous ? admit : undefined, maxRows: limit });
  }
}
