/**
 * A small protobuf writer for the subset of onnx.proto the policy graph needs (ModelProto,
 * GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto). It writes the wire format
 * directly (varints and length-delimited fields, https://protobuf.dev/programming-guides/encoding/)
 * so no schema compiler or protobuf package is needed. Field numbers follow onnx/onnx.proto
 * (proto2: repeated scalars are written unpacked, which every parser accepts). Tensor payloads go
 * in `raw_data` (little-endian), or, for export of big checkpoints, in an external data file.
 */

/** A growable byte buffer with the protobuf primitives. Nested messages are written into a child
 *  writer first and then appended length-prefixed: simple, and the copy is cheap next to the
 *  tensor payloads (which are appended once). */
const EMPTY = new Uint8Array(0);
const utf8 = new TextEncoder();

export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private cur = EMPTY;
  private pos = 0;
  private total = 0;

  get length(): number {
    return this.total + this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.cur.length) return;
    this.flush();
    this.cur = new Uint8Array(Math.max(256, n));
  }

  /** Closes the current chunk; the next write allocates a fresh one (only when there is one:
   *  a graph has thousands of small nested messages, and eager buffers would be mostly garbage). */
  private flush(): void {
    if (this.pos === 0) return;
    this.chunks.push(this.cur.subarray(0, this.pos));
    this.total += this.pos;
    this.cur = EMPTY;
    this.pos = 0;
  }

  varint(v: number | bigint): this {
    let x = BigInt.asUintN(64, BigInt(v));
    if (x < 0x80n) {
      this.ensure(1);
      this.cur[this.pos++] = Number(x);
      return this;
    }
    this.ensure(10);
    while (x >= 0x80n) {
      this.cur[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.cur[this.pos++] = Number(x);
    return this;
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, v: number | bigint): this {
    this.tag(field, 0);
    return this.varint(v);
  }

  float(field: number, v: number): this {
    this.tag(field, 5);
    this.ensure(4);
    new DataView(this.cur.buffer, this.cur.byteOffset).setFloat32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  /** a length-delimited field; big payloads are kept by reference, not copied */
  bytes(field: number, data: Uint8Array): this {
    this.tag(field, 2);
    this.varint(data.length);
    if (data.length > 1024) {
      this.flush();
      this.chunks.push(data);
      this.total += data.length;
    } else {
      this.ensure(data.length);
      this.cur.set(data, this.pos);
      this.pos += data.length;
    }
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, utf8.encode(s));
  }

  message(field: number, write: (w: ProtoWriter) => void): this {
    const child = new ProtoWriter();
    write(child);
    this.tag(field, 2);
    this.varint(child.length);
    this.flush();
    for (const c of child.parts()) {
      this.chunks.push(c);
      this.total += c.length;
    }
    return this;
  }

  parts(): Uint8Array[] {
    this.flush();
    return this.chunks;
  }

  finish(): Uint8Array {
    const parts = this.parts();
    const out = new Uint8Array(this.total);
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

// onnx.proto TensorProto.DataType values used here
export const DataType = { FLOAT: 1, INT32: 6, INT64: 7 } as const;
export type DataTypeId = (typeof DataType)[keyof typeof DataType];

export type AttrValue =
  | { kind: "int"; value: number }
  | { kind: "float"; value: number }
  | { kind: "ints"; value: number[] }
  | { kind: "string"; value: string }
  | { kind: "tensor"; value: TensorInit };

export interface NodeDef {
  op: string;
  inputs: string[];
  outputs: string[];
  name: string;
  domain?: string;
  attrs?: Record<string, AttrValue>;
}

/** An initializer: raw little-endian bytes, or a pointer into an external data file. */
export interface TensorInit {
  name: string;
  dims: number[];
  dataType: DataTypeId;
  raw?: Uint8Array;
  external?: { location: string; offset: number; length: number };
}

export interface ValueInfo {
  name: string;
  dataType: DataTypeId;
  /** a number is a fixed size, a string a symbolic dimension (batch, seq, ...) */
  dims: (number | string)[];
}

export interface ModelDef {
  graphName: string;
  nodes: NodeDef[];
  initializers: TensorInit[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  opsets: { domain: string; version: number }[];
  irVersion: number;
  producer: string;
}

function writeTensor(w: ProtoWriter, t: TensorInit): void {
  for (const d of t.dims) w.int(1, d); // dims
  w.int(2, t.dataType); // data_type
  w.string(8, t.name); // name
  if (t.external) {
    const ext = t.external;
    const entry = (k: string, v: string) => w.message(13, (e) => e.string(1, k).string(2, v));
    entry("location", ext.location);
    entry("offset", String(ext.offset));
    entry("length", String(ext.length));
    w.int(14, 1); // data_location = EXTERNAL
  } else {
    w.bytes(9, t.raw ?? new Uint8Array(0)); // raw_data
  }
}

function writeAttr(w: ProtoWriter, name: string, a: AttrValue): void {
  w.string(1, name);
  switch (a.kind) {
    case "float":
      w.float(2, a.value).int(20, 1);
      break;
    case "int":
      w.int(3, a.value).int(20, 2);
      break;
    case "string":
      w.string(4, a.value).int(20, 3);
      break;
    case "tensor":
      w.message(5, (t) => writeTensor(t, a.value)).int(20, 4);
      break;
    case "ints":
      for (const v of a.value) w.int(8, v);
      w.int(20, 7);
      break;
  }
}

function writeNode(w: ProtoWriter, n: NodeDef): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name);
  w.string(4, n.op);
  for (const [k, v] of Object.entries(n.attrs ?? {})) w.message(5, (a) => writeAttr(a, k, v));
  if (n.domain) w.string(7, n.domain);
}

function writeValueInfo(w: ProtoWriter, v: ValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tt) => {
      tt.int(1, v.dataType); // elem_type
      tt.message(2, (shape) => {
        for (const d of v.dims) {
          shape.message(1, (dim) => (typeof d === "number" ? dim.int(1, d) : dim.string(2, d)));
        }
      });
    }),
  );
}

/** Encodes a ModelProto. Returns the parts (tensor payloads by reference) so a caller that writes
 *  a file need not build one contiguous buffer; `encodeModel` joins them. */
export function encodeModelParts(m: ModelDef): Uint8Array[] {
  const w = new ProtoWriter();
  w.int(1, m.irVersion); // ir_version
  w.string(2, m.producer); // producer_name
  w.message(7, (g) => {
    for (const n of m.nodes) g.message(1, (x) => writeNode(x, n));
    g.string(2, m.graphName);
    for (const t of m.initializers) g.message(5, (x) => writeTensor(x, t));
    for (const v of m.inputs) g.message(11, (x) => writeValueInfo(x, v));
    for (const v of m.outputs) g.message(12, (x) => writeValueInfo(x, v));
  });
  for (const o of m.opsets) w.message(8, (x) => x.string(1, o.domain).int(2, o.version));
  return w.parts();
}

export function encodeModel(m: ModelDef): Uint8Array {
  const parts = encodeModelParts(m);
  const total = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
