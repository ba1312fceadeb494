/**
 * Activation checkpointing (Hugging Face's `gradient_checkpointing`, TRL's config flag of the same
 * name): a function whose forward pass keeps only its inputs. The backward pass runs it again
 * under a tape of its own and takes the gradients from that run. For a decoder layer this trades
 * one more forward pass for the memory of everything the layer's backward would read (attention
 * scores and probabilities [B, H, T, Tk], the MLP's [N, I] products, the rotated q/k): what stays
 * between the passes is one [N, D] input per layer.
 *
 * tfjs runs a custom gradient's forward with the tape off, so nothing inside is recorded. Its
 * backward may not simply call tf.grads, though: a gradient computed while another one is being
 * back-propagated replaces, then clears, the engine's active tape, and the outer pass fails when
 * it cleans that tape up. The outer tape is put back after the inner computation.
 */
import * as tf from "@tensorflow/tfjs-core";

/**
 * `fn(inputs, consts)` with its activations recomputed in the backward pass.
 * - `inputs`: what gradients flow to (the layer input, trainable weights); fn must use these
 *   very tensors, not copies it closes over, for the gradients to reach them;
 * - `consts`: other tensors fn reads (rotary tables, masks); they are kept until the backward
 *   pass, since the caller may dispose its own handles first.
 * `record(extra)` lets fn keep tensors it made in the forward pass for the replay (dropout
 * masks); the second call of fn gets them back as `replayed`.
 */
export function checkpoint(
  fn: (inputs: tf.Tensor[], consts: tf.Tensor[], io: { record?: (t: tf.Tensor) => void; replayed?: tf.Tensor[] }) => tf.Tensor,
  inputs: tf.Tensor[],
  consts: tf.Tensor[],
): tf.Tensor {
  const nIn = inputs.length, nConst = consts.length;
  const run = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const xs = args.slice(0, nIn) as tf.Tensor[];
    const recorded: tf.Tensor[] = [];
    const value = tf.tidy(() =>
      fn(xs, consts, {
        record: (t) => {
          recorded.push(tf.keep(t));
        },
      }),
    );
    // the engine keeps (and later disposes) clones of what is saved; the recorded tensors were
    // kept only until then
    save([...xs, ...consts, ...recorded]);
    tf.dispose(recorded);
    return {
      value,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const xsSaved = saved.slice(0, nIn);
        const constsSaved = saved.slice(nIn, nIn + nConst);
        const replayed = saved.slice(nIn + nConst);
        return withOwnTape(() => {
          const { value, grads } = tf.engine().gradients(() => fn(xsSaved, constsSaved, { replayed }), xsSaved, dy, true);
          value.dispose(); // the recomputed output: only its gradients are wanted
          // an input the output does not depend on gets a zero gradient, as customGrad needs one per input
          return grads.map((g, i) => g ?? tf.zerosLike(xsSaved[i]));
        });
      },
    };
  });
  return run(...inputs);
}

/** Runs fn (which computes gradients) and restores the tape of the gradient pass around it. */
function withOwnTape<R>(fn: () => R): R {
  const state = (tf.engine() as unknown as { state: { activeTape: unknown } }).state;
  const outer = state.activeTape;
  try {
    return fn();
  } finally {
    state.activeTape = outer;
  }
}
