/**
 * The onnxruntime engine: one `OrtPolicy` session over the generated policy graph (logits for
 * the last position only). A batch is left-padded to its longest prompt and prefilled in one run;
 * then one run per step feeds a token per live row with the KV cache (`KvCache`, which doubles
 * its buffer as it fills). Pads are masked by `attentionBias` and each row's positions count its
 * real tokens only, so a row's logits do not depend on its batch (up to float rounding).
 * Finished rows leave the cache before the next run, as in ort-sampler.ts. New requests join a
 * running batch (continuous batching): prefilled on their own, their cache rows right-aligned
 * with the running ones, the difference padded; slots no live row needs are dropped as rows leave.
 * A prompt that starts like one prefilled before (the same system turn and tools, the next turn of
 * a conversation) runs only its new tokens, over the stored keys and values (prefix-cache.ts).
 */
import type { ModelConfig } from "../policy/config.js";
import { KvCache, OrtPolicy, prefillInput } from "../policy/onnx/ort-policy.js";
import { attentionBias } from "../policy/onnx/policy-graph.js";
import type { NamedWeights } from "../policy/weights.js";
import type { BatchSession, StepEngine } from "./engine.js";
import { PrefixStore } from "./prefix-cache.js";

/** Row `b`'s slots [from, to) of a [B, KVH, T, HD] buffer, as [KVH, to - from, HD]. */
function copySlots(src: Float32Array, b: number, KVH: number, T: number, HD: number, from: number, to: number): Float32Array {
  const n = to - from;
  const out = new Float32Array(KVH * n * HD);
  for (let h = 0; h < KVH; h++) out.set(src.subarray(((b * KVH + h) * T + from) * HD, ((b * KVH + h) * T + to) * HD), h * n * HD);
  return out;
}

/** Per layer [KVH, n, HD] keys and values of one prompt, and its last position's logits [V]. */
interface PrefilledRow {
  keys: Float32Array[];
  values: Float32Array[];
  logits: Float32Array;
}

/** Default budget of the prefix store, in bytes of keys and values. */
const PREFIX_CACHE_BYTES = 256 * 2 ** 20;

export class OrtEngine implements StepEngine {
  readonly kind = "ort" as const;
  closed = false;
  readonly maxBatch = 64;
  /** prompt tokens asked for, how many came from the prefix store, and how many were run
   *  through the model (a prompt sent several times at once, as a GRPO group's, runs once) */
  readonly prefixStats = { promptTokens: 0, cachedTokens: 0, computedTokens: 0 };
  private constructor(
    readonly config: ModelConfig,
    private readonly policy: OrtPolicy,
    /** null: prefix caching off */
    readonly prefixes: PrefixStore | null,
  ) {}

  get prefixCaching(): boolean {
    return this.prefixes !== null;
  }

  get prefixCacheTokens(): number {
    return this.prefixes?.maxTokens ?? 0;
  }

  /** `prefixCacheBytes`: the prefix store's budget (default 256 MiB; 0 turns it off). */
  static async create(config: ModelConfig, weights: NamedWeights, opts: { prefixCacheBytes?: number } = {}): Promise<OrtEngine> {
    const bytesPerToken = 2 * config.numLayers * config.numKvHeads * config.headDim * 4;
    const tokens = Math.floor((opts.prefixCacheBytes ?? PREFIX_CACHE_BYTES) / bytesPerToken);
    return new OrtEngine(config, await OrtPolicy.create(config, weights, { logits: "last" }), tokens > 0 ? new PrefixStore(tokens) : null);
  }

  /** Prefills prompts: each distinct one once, those with a stored prefix one by one from it,
   *  the others together (left-padded to the longest); every prompt is stored for later ones.
   *  Returns them left-padded to T: logits [B, V], keys/values [B, KVH, T, HD] per layer, and
   *  how many tokens of each came from the store. */
  private async prefill(all: number[][]) {
    const c = this.config, KVH = c.numKvHeads, HD = c.headDim, V = c.vocabSize;
    const firstOf = new Map<string, number>();
    const prompts: number[][] = [];
    const which = all.map((p) => {
      const key = p.join(",");
      let u = firstOf.get(key);
      if (u === undefined) firstOf.set(key, (u = prompts.push(p) - 1));
      return u;
    });
    const rows = new Array<PrefilledRow>(prompts.length);
    const hits = prompts.map((p) => this.prefixes?.lookup(p) ?? null);
    const misses = prompts.flatMap((_, b) => (hits[b] ? [] : [b]));
    if (misses.length > 0) {
      const { input, T: Tm, pads: padsM } = prefillInput(misses.map((b) => prompts[b]));
      const out = await this.policy.step(input);
      misses.forEach((b, i) => {
        const slots = (src: Float32Array) => copySlots(src, i, KVH, Tm, HD, padsM[i], Tm);
        rows[b] = { keys: out.newKeys.map(slots), values: out.newValues.map(slots), logits: out.logits.slice(i * V, (i + 1) * V) };
        this.prefixStats.computedTokens += prompts[b].length;
      });
    }
    for (let b = 0; b < prompts.length; b++) {
      const hit = hits[b];
      if (!hit) continue;
      // the stored prompt's buffers as the past, only its first `length` slots visible
      const past = new KvCache(c.numLayers, 1, KVH, HD, 0); // no buffers of its own
      past.capacity = hit.capacity;
      past.keys = hit.keys;
      past.values = hit.values;
      past.filled = hit.length;
      const rest = prompts[b].slice(hit.length);
      const out = await this.policy.step({
        ids: [rest],
        positions: [rest.map((_, t) => hit.length + t)],
        bias: attentionBias([0], hit.length, hit.capacity, rest.length),
        past,
      });
      const concatenate = (stored: Float32Array, fresh: Float32Array) => {
        const row = new Float32Array(KVH * prompts[b].length * HD); // [KVH, n, HD]
        for (let h = 0; h < KVH; h++) {
          const at = h * prompts[b].length * HD;
          row.set(stored.subarray(h * hit.capacity * HD, (h * hit.capacity + hit.length) * HD), at);
          row.set(fresh.subarray(h * rest.length * HD, (h + 1) * rest.length * HD), at + hit.length * HD);
        }
        return row;
      };
      rows[b] = { keys: hit.keys.map((k, l) => concatenate(k, out.newKeys[l])), values: hit.values.map((v, l) => concatenate(v, out.newValues[l])), logits: out.logits.slice(0, V) };
      this.prefixStats.cachedTokens += hit.length;
      this.prefixStats.computedTokens += rest.length;
    }
    prompts.forEach((p, u) => this.prefixes?.insert(p, rows[u].keys, rows[u].values));
    for (const p of all) this.prefixStats.promptTokens += p.length;
    // left-padded to the longest, as one batch's prefill would have left them
    const T = Math.max(...all.map((p) => p.length));
    const pads = all.map((p) => T - p.length);
    const padded = (pick: (r: PrefilledRow) => Float32Array[]) =>
      Array.from({ length: c.numLayers }, (_, l) => {
        const out = new Float32Array(all.length * KVH * T * HD); // [B, KVH, T, HD]
        all.forEach((p, b) => {
          const src = pick(rows[which[b]])[l]; // [KVH, n, HD]
          for (let h = 0; h < KVH; h++) out.set(src.subarray(h * p.length * HD, (h + 1) * p.length * HD), ((b * KVH + h) * T + pads[b]) * HD);
        });
        return out;
      });
    const logits = new Float32Array(all.length * V); // [B, V]
    which.forEach((u, b) => logits.set(rows[u].logits, b * V));
    const cached = which.map((u) => hits[u]?.length ?? 0);
    return { T, pads, logits, newKeys: padded((r) => r.keys), newValues: padded((r) => r.values), cached };
  }

  async start(prompts: number[][]): Promise<BatchSession> {
    const first = await this.prefill(prompts);
    const T = first.T;
    let pads = first.pads;
    let positions = prompts.map((p) => p.length);
    const cache = KvCache.for(this.config, prompts.length, T + 64);
    cache.append(first.newKeys, first.newValues, T);
    const policy = this.policy;
    const self = this;
    const session = {
      logits: first.logits.slice(), // [B, V]
      cached: first.cached,
      async step(keep: number[], tokens: number[]): Promise<void> {
        if (keep.length < pads.length) {
          pads = keep.map((i) => pads[i]);
          // slots every kept row pads (rows that joined late and left early) are dropped
          const drop = pads.length > 0 ? Math.min(...pads) : 0;
          cache.selectRows(keep, drop);
          pads = pads.map((p) => p - drop);
          positions = keep.map((i) => positions[i]);
        }
        const out = await policy.step({
          ids: tokens.map((t) => [t]),
          positions: positions.map((p) => [p]),
          bias: attentionBias(pads, cache.filled, cache.capacity, 1),
          past: cache,
        });
        positions = positions.map((p) => p + 1);
        cache.append(out.newKeys, out.newValues, 1);
        session.logits = out.logits.slice(); // [B, V]
      },
      async join(more: number[][]): Promise<void> {
        const joined = await self.prefill(more);
        const T2 = joined.T, morePads = joined.pads;
        const shift = cache.admit(joined.newKeys, joined.newValues, more.length, T2);
        // a new row's slots end where the filled ones do: its pad is what its prompt leaves
        pads = [...pads.map((p) => p + shift), ...morePads.map((p) => p + cache.filled - T2)];
        positions = [...positions, ...more.map((p) => p.length)];
        const logits = new Float32Array(session.logits.length + joined.logits.length); // [B + B2, V]
        logits.set(session.logits);
        logits.set(joined.logits, session.logits.length);
        session.logits = logits;
        session.cached = joined.cached;
      },
      dispose(): void {},
    };
    return session;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.policy.release();
  }
}
