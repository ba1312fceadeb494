/**
 * AdamW (Loshchilov & Hutter; torch.optim.AdamW's update order): decoupled weight decay
 * p ← p·(1 − lr·wd), then p ← p − lr · m̂ / (√v̂ + eps) with bias-corrected moments. Plus
 * clipping by global norm (torch.nn.utils.clip_grad_norm_: coef = min(1, max/(norm + 1e-6))).
 * State (m, v, step) is exported by parameter name for checkpoints and resume.
 */
import * as tf from "@tensorflow/tfjs-core";
import type { NamedWeights } from "./weights.js";

export interface AdamWOptions {
  /** learning rate (default 1e-5) */
  lr?: number;
  /** default 0.9 */
  beta1?: number;
  /** default 0.999 */
  beta2?: number;
  /** default 1e-8 */
  eps?: number;
  /** decoupled weight decay (default 0); applied to matrices only, not to norms and biases, as HF Trainer does */
  weightDecay?: number;
}

export interface OptimizerState {
  step: number;
  m: NamedWeights;
  v: NamedWeights;
}

export class AdamW {
  lr: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  stepCount = 0;
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();

  constructor(opts: AdamWOptions = {}) {
    this.lr = opts.lr ?? 1e-5;
    this.beta1 = opts.beta1 ?? 0.9;
    this.beta2 = opts.beta2 ?? 0.999;
    this.eps = opts.eps ?? 1e-8;
    this.weightDecay = opts.weightDecay ?? 0;
    if (!(this.lr >= 0)) throw new Error(`AdamW: lr must be >= 0, got ${this.lr}`);
    if (!(this.beta1 >= 0 && this.beta1 < 1 && this.beta2 >= 0 && this.beta2 < 1)) throw new Error(`AdamW: betas must be in [0, 1)`);
  }

  /** One update of `params` with `grads` (same keys). Disposes nothing it did not create. */
  apply(params: Map<string, tf.Variable>, grads: Map<string, tf.Tensor>): void {
    this.stepCount++;
    const t = this.stepCount;
    const bc1 = 1 - this.beta1 ** t, bc2 = 1 - this.beta2 ** t;
    for (const [name, p] of params) {
      const g = grads.get(name);
      if (!g) throw new Error(`AdamW: no gradient for "${name}"`);
      if (!this.m.has(name)) {
        this.m.set(name, tf.variable(tf.zerosLike(p), false));
        this.v.set(name, tf.variable(tf.zerosLike(p), false));
      }
      const m = this.m.get(name)!, v = this.v.get(name)!;
      tf.tidy(() => {
        const m1 = tf.add(tf.mul(m, this.beta1), tf.mul(g, 1 - this.beta1)); // [*p]
        const v1 = tf.add(tf.mul(v, this.beta2), tf.mul(tf.square(g), 1 - this.beta2)); // [*p]
        const upd = tf.div(tf.div(m1, bc1), tf.add(tf.sqrt(tf.div(v1, bc2)), this.eps)); // [*p]
        const decayed = this.weightDecay > 0 && p.rank >= 2 ? tf.mul(p, 1 - this.lr * this.weightDecay) : p;
        m.assign(m1);
        v.assign(v1);
        p.assign(tf.sub(decayed, tf.mul(upd, this.lr)));
      });
    }
  }

  state(): OptimizerState {
    const dump = (s: Map<string, tf.Variable>): NamedWeights =>
      new Map([...s].map(([k, t]) => [k, { shape: [...t.shape], data: t.dataSync() as Float32Array }]));
    return { step: this.stepCount, m: dump(this.m), v: dump(this.v) };
  }

  load(s: OptimizerState): void {
    this.dispose();
    this.stepCount = s.step;
    for (const [k, t] of s.m) this.m.set(k, tf.variable(tf.tensor(t.data, t.shape), false));
    for (const [k, t] of s.v) this.v.set(k, tf.variable(tf.tensor(t.data, t.shape), false));
  }

  dispose(): void {
    for (const t of [...this.m.values(), ...this.v.values()]) t.dispose();
    this.m.clear();
    this.v.clear();
  }
}

/** Global L2 norm of the gradients, and the factor torch's clip_grad_norm_ scales them by. */
export function clipByGlobalNorm(grads: Map<string, tf.Tensor>, maxNorm: number): { norm: number; coef: number } {
  const sq = tf.tidy(() => tf.addN([...grads.values()].map((g) => tf.sum(tf.square(g))))); // []
  const norm = Math.sqrt(sq.dataSync()[0]);
  sq.dispose();
  const coef = maxNorm > 0 ? Math.min(1, maxNorm / (norm + 1e-6)) : 1;
  return { norm, coef };
}
