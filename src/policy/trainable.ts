/**
 * The training surface the RL loop calls: differentiable per-token log-probs, one optimizer step
 * over several micro-batches (gradients accumulated, averaged, clipped by global norm, one AdamW
 * update), reference log-probs with the adapters disabled, and optimizer state for resume. The
 * loss is the caller's: a pure tfjs function of the log-probs tensor (GRPO lives in src/rl).
 */
import * as tf from "@tensorflow/tfjs-core";
import { gradientsReady } from "./tfjs-gradients.js";
import { AdamW, clipByGlobalNorm, type AdamWOptions, type OptimizerState } from "./optimizer.js";
import type { LoraConfig, Transformer } from "./model/transformer.js";

export interface TrainableOptions extends AdamWOptions {
  /** clip the global gradient norm to this (default 1.0; 0 disables clipping) */
  maxGradNorm?: number;
  /** LoRA adapters; absent means full fine-tuning */
  lora?: LoraConfig;
}

/** One micro-batch: the sequences, plus whatever the loss needs (masks, advantages...). */
export interface MicroBatch {
  ids: number[][];
  /** [B, T-1] the positions the loss reads (1); when given, log-probs are computed there only */
  mask?: number[][];
}

/** logp [B, T-1] (log p(ids[t+1] | ids[<=t])), entropy [B, T-1] when asked for → scalar loss. */
export type LossFn<M extends MicroBatch> = (logp: tf.Tensor2D, batch: M, entropy?: tf.Tensor2D) => tf.Scalar;

export interface StepResult {
  /** mean of the micro-batch losses */
  loss: number;
  /** global gradient norm before clipping */
  gradNorm: number;
  /** how many micro-batches went into the update */
  microBatches: number;
}

export class Trainable {
  readonly optimizer: AdamW;
  readonly maxGradNorm: number;

  constructor(
    readonly model: Transformer,
    opts: TrainableOptions = {},
  ) {
    this.optimizer = new AdamW(opts);
    this.maxGradNorm = opts.maxGradNorm ?? 1.0;
    if (opts.lora) model.enableLora(opts.lora);
  }

  /** Per-token log-probs as plain arrays (no gradient): row b has ids[b].length - 1 entries;
   *  with `only`, just where it is > 0 (0 elsewhere), as `step` computes them. */
  logprobs(ids: number[][], only?: readonly (readonly number[])[]): number[][] {
    const { logp } = this.model.tokenLogprobs(ids, only ? { only } : {});
    const flat = logp.dataSync();
    const T1 = logp.shape[1];
    logp.dispose();
    return ids.map((r, b) => Array.from(flat.subarray(b * T1, b * T1 + r.length - 1)));
  }

  /** Reference log-probs: the base model (adapters off). Full fine-tuning has no reference copy: throws. */
  referenceLogprobs(ids: number[][], only?: readonly (readonly number[])[]): number[][] {
    if (!this.model.adapters()) throw new Error("referenceLogprobs needs LoRA adapters (full fine-tuning keeps no reference weights)");
    return this.model.withAdaptersDisabled(() => this.logprobs(ids, only));
  }

  /**
   * One update: for each micro-batch, the loss and its gradient; the gradients are averaged over
   * the micro-batches, clipped by global norm, and applied once with AdamW.
   */
  step<M extends MicroBatch>(micro: M[], lossFn: LossFn<M>, opts: { entropy?: boolean; onMicroBatch?: (done: number, total: number) => void } = {}): StepResult {
    if (micro.length === 0) throw new Error("Trainable.step: no micro-batches");
    if (!gradientsReady()) throw new Error("Trainable.step: tfjs gradients are not registered; call `await initBackend()` (src/policy/backend.ts) first");
    const vars = this.model.trainableVariables();
    const names = [...vars.keys()];
    const list = names.map((n) => vars.get(n)!);
    const acc = new Map<string, tf.Tensor>();
    let lossSum = 0;
    this.model.training = true;
    try {
      for (const [i, mb] of micro.entries()) {
        const { value, grads } = tf.variableGrads(() => {
          const { logp, entropy } = this.model.tokenLogprobs(mb.ids, { entropy: opts.entropy, only: mb.mask });
          return lossFn(logp, mb, entropy);
        }, list);
        lossSum += value.dataSync()[0];
        value.dispose();
        opts.onMicroBatch?.(i + 1, micro.length);
        names.forEach((n, i) => {
          const g = grads[list[i].name];
          const prev = acc.get(n);
          if (prev) {
            acc.set(n, tf.add(prev, g));
            prev.dispose();
            g.dispose();
          } else acc.set(n, g);
        });
      }
    } finally {
      this.model.training = false;
    }
    const k = micro.length;
    if (!Number.isFinite(lossSum)) {
      tf.dispose([...acc.values()]);
      throw new Error(`Trainable.step: the loss is not finite (${lossSum}); no update applied`);
    }
    const { norm, coef } = clipByGlobalNorm(acc, this.maxGradNorm * k); // norm of the sum; clip the mean
    const scaled = new Map<string, tf.Tensor>();
    for (const [n, g] of acc) scaled.set(n, tf.mul(g, coef / k));
    this.optimizer.apply(vars, scaled);
    tf.dispose([...acc.values(), ...scaled.values()]);
    return { loss: lossSum / k, gradNorm: norm / k, microBatches: k };
  }

  optimizerState(): OptimizerState {
    return this.optimizer.state();
  }

  loadOptimizerState(s: OptimizerState): void {
    this.optimizer.load(s);
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}
