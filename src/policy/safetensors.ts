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
import { makeDirs } from "../fs-dirs.js";

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

/** The header's tensor entries, each checked against its dtype, shape and the file's size;
 *  offsets are absolute (from the start of the file). */
function parseHeader(json: string, headerLen: number, fileSize: number, where: string) {
  let header: Record<string, HeaderEntry | Record<string, string>>;
  try {
    header = JSON.parse(json);
  } catch (e) {
    // (the parser's message quotes the text: a file that is no safetensors file is not echoed)
    throw new TrainMcpError("ModelInvalid", `${where}: not a safetensors file (its header is not valid JSON)`);
  }
  const base = 8 + headerLen;
  const entries: Array<{ name: string; dtype: string; shape: number[]; begin: number; end: number }> = [];
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
    if (base + en > fileSize) throw new TrainMcpError("ModelInvalid", `${where}: tensor "${name}" runs past the end of the file`);
    entries.push({ name, dtype: e.dtype, shape: e.shape, begin: base + b, end: base + en });
  }
  return { entries, metadata };
}

function headerLength(first8: Buffer, fileSize: number, where: string): number {
  if (fileSize < 8) throw new TrainMcpError("ModelInvalid", `${where}: file too short (${fileSize} bytes)`);
  const headerLen = Number(first8.readBigUInt64LE(0));
  // (the length is the file's first 8 bytes: not echoed, whatever file this is)
  if (8 + headerLen > fileSize) throw new TrainMcpError("ModelInvalid", `${where}: not a safetensors file (its header length runs past the end of the file, ${fileSize} bytes)`);
  return headerLen;
}

/** Parses a safetensors buffer; tensors are float32 views into `buf` where possible. */
export function parseSafetensors(buf: Buffer, where = "safetensors"): { tensors: Map<string, FloatTensor>; metadata: Record<string, string> } {
  const headerLen = headerLength(buf, buf.length, where);
  const { entries, metadata } = parseHeader(buf.subarray(8, 8 + headerLen).toString("utf8"), headerLen, buf.length, where);
  const tensors = new Map<string, FloatTensor>();
  for (const e of entries) tensors.set(e.name, { shape: e.shape, data: toFloat32(buf, e.begin, e.end, e.dtype, `${where}: tensor "${e.name}"`) });
  return { tensors, metadata };
}

/**
 * Reads a safetensors file tensor by tensor (a checkpoint is often larger than the 2 GiB one
 * read may return): F32 tensors straight into their Float32Array, F16/BF16 through a buffer of
 * their own.
 */
export function readSafetensors(file: string, opts: { readBytes?: number } = {}): { tensors: Map<string, FloatTensor>; metadata: Record<string, string> } {
  const readBytes = opts.readBytes ?? 2 ** 30; // per read call (tests make it small to cross read boundaries)
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (e) {
    throw new TrainMcpError("IoFailed", `cannot read ${file}: ${(e as Error).message}`, true, { cause: e });
  }
  try {
    const readAt = (into: Uint8Array, position: number) => {
      // one read returns at most ~2 GiB: loop
      for (let done = 0; done < into.length; ) {
        const n = fs.readSync(fd, into, done, Math.min(into.length - done, readBytes), position + done);
        if (n === 0) throw new TrainMcpError("ModelInvalid", `${file}: file ended early`);
        done += n;
      }
    };
    const size = fs.fstatSync(fd).size;
    const first8 = Buffer.alloc(8);
    if (size >= 8) readAt(first8, 0);
    const headerLen = headerLength(first8, size, file);
    const json = Buffer.alloc(headerLen);
    readAt(json, 8);
    const { entries, metadata } = parseHeader(json.toString("utf8"), headerLen, size, file);
    const tensors = new Map<string, FloatTensor>();
    for (const e of entries) {
      const where = `${file}: tensor "${e.name}"`;
      let data: Float32Array;
      if (e.dtype === "F32") {
        data = new Float32Array((e.end - e.begin) / 4);
        readAt(new Uint8Array(data.buffer), e.begin);
      } else {
        const raw = Buffer.alloc(e.end - e.begin);
        readAt(raw, e.begin);
        data = toFloat32(raw, 0, raw.length, e.dtype, where);
      }
      tensors.set(e.name, { shape: e.shape, data });
    }
    return { tensors, metadata };
  } catch (e) {
    if (e instanceof TrainMcpError) throw e;
    throw new TrainMcpError("IoFailed", `cannot read ${file}: ${(e as Error).message}`, true, { cause: e });
  } finally {
    fs.closeSync(fd);
  }
}

/** The 8-byte length and the JSON header of float32 tensors (sorted by name, as the Python
 *  library does), padded so the data starts 8-byte aligned (readers can map float arrays in place). */
function safetensorsHeader(tensors: Map<string, FloatTensor>, metadata?: Record<string, string>): Buffer {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let off = 0;
  for (const name of [...tensors.keys()].sort()) {
    const t = tensors.get(name)!;
    const count = t.shape.reduce((a, s) => a * s, 1);
    if (count !== t.data.length) throw new Error(`tensor "${name}": shape ${JSON.stringify(t.shape)} has ${count} elements, data has ${t.data.length}`);
    header[name] = { dtype: "F32", shape: t.shape, data_offsets: [off, off + 4 * count] };
    off += 4 * count;
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const hbytes = Buffer.from(json, "utf8");
  const out = Buffer.alloc(8 + hbytes.length);
  out.writeBigUInt64LE(BigInt(hbytes.length), 0);
  hbytes.copy(out, 8);
  return out;
}

/** Serializes float32 tensors into one buffer (small files; `writeSafetensors` streams). */
export function serializeSafetensors(tensors: Map<string, FloatTensor>, metadata?: Record<string, string>): Buffer {
  const names = [...tensors.keys()].sort();
  const parts = [safetensorsHeader(tensors, metadata)];
  for (const name of names) {
    const d = tensors.get(name)!.data;
    parts.push(Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }
  return Buffer.concat(parts);
}

/** Writes a file atomically: temp file in the same folder, then rename. */
export function writeFileAtomic(file: string, data: Buffer | string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    makeDirs(path.dirname(file));
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new TrainMcpError("IoFailed", `cannot write ${file}: ${(e as Error).message}`, true, { cause: e });
  }
}

/**
 * Writes `parts` one after another to a temp file renamed over `file` (no buffer of the whole
 * file: a checkpoint may pass Node's largest Buffer, and one write returns at most ~2 GiB).
 * Returns the bytes written.
 */
export function writePartsAtomic(file: string, parts: Iterable<Uint8Array>): number {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  let total = 0;
  try {
    makeDirs(path.dirname(file));
    const fd = fs.openSync(tmp, "w");
    try {
      for (const bytes of parts) {
        for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done, Math.min(bytes.length - done, 2 ** 30));
        total += bytes.length;
      }
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new TrainMcpError("IoFailed", `cannot write ${file}: ${(e as Error).message}`, true, { cause: e });
  }
  return total;
}

/** Writes float32 tensors as `serializeSafetensors` lays them out, tensor by tensor. */
export function writeSafetensors(file: string, tensors: Map<string, FloatTensor>, metadata?: Record<string, string>): void {
  const header = safetensorsHeader(tensors, metadata);
  writePartsAtomic(
    file,
    (function* () {
      yield header;
      for (const name of [...tensors.keys()].sort()) {
        const d = tensors.get(name)!.data;
        yield new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
      }
    })(),
  );
}
