/**
 * safetensors I/O (https://huggingface.co/docs/safetensors): an 8-byte little-endian header
 * length, a JSON header `{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__"?}`,
 * then raw little-endian tensor bytes. Reading returns float32 views: F32 data is used in place
 * (zero-copy) when its offset is 4-byte aligned, F16/BF16 are widened. Writing goes to a temp
 * file that is renamed over the target, so a crash never leaves half a checkpoint.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { TrainMcpError } from "../errors.js";

export interface FloatTensor {
  shape: number[];
  data: Float32Array;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

const BYTES: Record<string, number> = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8, I32: 4 };

/** half-precision bits → float, per IEEE 754 binary16 */
function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24; // subnormal
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function toFloat32(buf: Buffer, begin: number, end: number, dtype: string, where: string): Float32Array {
  const n = (end - begin) / (BYTES[dtype] ?? NaN);
  const abs = buf.byteOffset + begin;
  switch (dtype) {
    case "F32":
      if (abs % 4 === 0) return new Float32Array(buf.buffer, abs, n); // zero-copy view
      return new Float32Array(new Uint8Array(buf.buffer, abs, end - begin).slice().buffer);
    case "F16": {
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = f16ToF32(buf.readUInt16LE(begin + 2 * i));
      return out;
    }
    case "BF16": {
      // bf16 is the top half of a float32
      const out = new Float32Array(n);
      const u = new Uint32Array(out.buffer);
      for (let i = 0; i < n; i++) u[i] = buf.readUInt16LE(begin + 2 * i) << 16;
      return out;
    }
    case "F64": {
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = buf.readDoubleLE(begin + 8 * i);
      return out;
    }
    default:
      throw new TrainMcpError("ModelInvalid", `${where}: dtype ${dtype} is not supported (expected F32, F16, BF16 or F64)`);
  }
}

/** Parses a safetensors buffer; tensors are float32 views into `buf` where possible. */
export function parseSafetensors(buf: Buffer, where = "safetensors"): { tensors: Map<string, FloatTensor>; metadata: Record<string, string> } {
  if (buf.length < 8) throw new TrainMcpError("ModelInvalid", `${where}: file too short (${buf.length} bytes)`);
  const headerLen = Number(buf.readBigUInt64LE(0));
  if (8 + headerLen > buf.length) throw new TrainMcpError("ModelInvalid", `${where}: header length ${headerLen} exceeds file size ${buf.length}`);
  let header: Record<string, HeaderEntry | Record<string, string>>;
  try {
    header = JSON.parse(buf.subarray(8, 8 + headerLen).toString("utf8"));
  } catch (e) {
    throw new TrainMcpError("ModelInvalid", `${where}: header is not valid JSON: ${(e as Error).message}`);
  }
  const base = 8 + headerLen;
  const tensors = new Map<string, FloatTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === "__metadata__") {
      metadata = entry as Record<string, string>;
      continue;
    }
    const e = entry as HeaderEntry;
    const [b, en] = e.data_offsets;
    const count = e.shape.reduce((a, s) => a * s, 1);
    const size = BYTES[e.dtype];
    if (size !== undefined && en - b !== count * size)
      throw new TrainMcpError("ModelInvalid", `${where}: tensor "${name}" has ${en - b} bytes, expected ${count * size} for ${e.dtype}${JSON.stringify(e.shape)}`);
    if (base + en > buf.length) throw new TrainMcpError("ModelInvalid", `${where}: tensor "${name}" runs past the end of the file`);
    tensors.set(name, { shape: e.shape, data: toFloat32(buf, base + b, base + en, e.dtype, `${where}: tensor "${name}"`) });
  }
  return { tensors, metadata };
}

export function readSafetensors(file: string): { tensors: Map<string, FloatTensor>; metadata: Record<string, string> } {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    throw new TrainMcpError("IoFailed", `cannot read ${file}: ${(e as Error).message}`, true, { cause: e });
  }
  return parseSafetensors(buf, file);
}

/** Serializes float32 tensors (sorted by name, as the Python library does). */
export function serializeSafetensors(tensors: Map<string, FloatTensor>, metadata?: Record<string, string>): Buffer {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let off = 0;
  for (const name of names) {
    const t = tensors.get(name)!;
    const count = t.shape.reduce((a, s) => a * s, 1);
    if (count !== t.data.length) throw new Error(`tensor "${name}": shape ${JSON.stringify(t.shape)} has ${count} elements, data has ${t.data.length}`);
    header[name] = { dtype: "F32", shape: t.shape, data_offsets: [off, off + 4 * count] };
    off += 4 * count;
  }
  let json = JSON.stringify(header);
  // pad the header so the data starts 8-byte aligned (lets readers map float arrays in place)
  json += " ".repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const hbytes = Buffer.from(json, "utf8");
  const out = Buffer.alloc(8 + hbytes.length + off);
  out.writeBigUInt64LE(BigInt(hbytes.length), 0);
  hbytes.copy(out, 8);
  let pos = 8 + hbytes.length;
  for (const name of names) {
    const d = tensors.get(name)!.data;
    Buffer.from(d.buffer, d.byteOffset, d.byteLength).copy(out, pos);
    pos += d.byteLength;
  }
  return out;
}

/** Writes a file atomically: temp file in the same folder, then rename. */
export function writeFileAtomic(file: string, data: Buffer | string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new TrainMcpError("IoFailed", `cannot write ${file}: ${(e as Error).message}`, true, { cause: e });
  }
}

export function writeSafetensors(file: string, tensors: Map<string, FloatTensor>, metadata?: Record<string, string>): void {
  writeFileAtomic(file, serializeSafetensors(tensors, metadata));
}
