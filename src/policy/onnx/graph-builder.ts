/**
 * A tiny graph-building helper over the protobuf writer: `op("MatMul", [a, b])` appends a node and
 * returns its output name, constants become initializers, names are made unique. It keeps the
 * policy graph code (policy-graph.ts) reading like the forward pass it encodes, in the manner of
 * onnxscript / PyTorch's graph builder, without any of their machinery.
 */
import { DataType, type AttrValue, type ModelDef, type NodeDef, type TensorInit, type ValueInfo } from "./proto.js";

export class GraphBuilder {
  readonly nodes: NodeDef[] = [];
  readonly initializers: TensorInit[] = [];
  readonly inputs: ValueInfo[] = [];
  readonly outputs: ValueInfo[] = [];
  private counter = 0;
  private readonly constCache = new Map<string, string>();

  private fresh(hint: string): string {
    return `${hint}_${this.counter++}`;
  }

  /** Appends one node; returns its output names (one per `nOut`). */
  opN(op: string, inputs: string[], nOut: number, attrs?: Record<string, AttrValue>, opts: { name?: string; domain?: string } = {}): string[] {
    const name = opts.name ?? this.fresh(op);
    const outputs = nOut === 1 ? [opts.name ?? name] : Array.from({ length: nOut }, (_, i) => `${name}:${i}`);
    this.nodes.push({ op, inputs, outputs, name, attrs, domain: opts.domain });
    return outputs;
  }

  op(op: string, inputs: string[], attrs?: Record<string, AttrValue>, opts: { name?: string; domain?: string } = {}): string {
    return this.opN(op, inputs, 1, attrs, opts)[0];
  }

  /** An int64 constant (shapes, axes, indices), shared between uses. */
  i64(values: number[], dims: number[] = [values.length]): string {
    const key = `i64:${dims}:${values}`;
    const hit = this.constCache.get(key);
    if (hit) return hit;
    const name = this.fresh("const_i64");
    const raw = new Uint8Array(new BigInt64Array(values.map((v) => BigInt(v))).buffer);
    this.initializers.push({ name, dims, dataType: DataType.INT64, raw });
    this.constCache.set(key, name);
    return name;
  }

  /** A float32 constant or weight initializer under a given name. */
  f32(name: string, dims: number[], data: Float32Array): string {
    const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.initializers.push({ name, dims, dataType: DataType.FLOAT, raw });
    return name;
  }

  scalarF32(value: number): string {
    const key = `f32:${value}`;
    const hit = this.constCache.get(key);
    if (hit) return hit;
    const name = this.f32(this.fresh("const_f32"), [], new Float32Array([value]));
    this.constCache.set(key, name);
    return name;
  }

  input(name: string, dataType: ValueInfo["dataType"], dims: (number | string)[]): string {
    this.inputs.push({ name, dataType, dims });
    return name;
  }

  /** Marks `value` as a graph output named `name` (an Identity when the names differ). */
  output(value: string, name: string, dataType: ValueInfo["dataType"], dims: (number | string)[]): void {
    if (value !== name) this.op("Identity", [value], undefined, { name });
    this.outputs.push({ name, dataType, dims });
  }

  model(graphName: string, opsets: ModelDef["opsets"]): ModelDef {
    return {
      graphName,
      nodes: this.nodes,
      initializers: this.initializers,
      inputs: this.inputs,
      outputs: this.outputs,
      opsets,
      // IR 8 pairs with opset 17..18; onnxruntime 1.30 reads it
      irVersion: 8,
      producer: "train-mcp",
    };
  }
}

export const ints = (value: number[]): AttrValue => ({ kind: "ints", value });
export const int = (value: number): AttrValue => ({ kind: "int", value });
export const float = (value: number): AttrValue => ({ kind: "float", value });
