/** Backend selection: wasm by default, a clear BackendUnavailable error for an absent GPU backend. */
import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it } from "vitest";
import { isTrainMcpError } from "../../src/errors.js";
import { initBackend } from "../../src/policy/backend.js";

describe("initBackend", () => {
  it("defaults to wasm when tfjs-node is not installed, and switches to the js reference backend", async () => {
    expect(await initBackend()).toBe("wasm");
    expect(await initBackend({ device: "js" })).toBe("cpu");
    expect(await initBackend({ device: "wasm" })).toBe("wasm");
    expect(tf.getBackend()).toBe("wasm");
  });

  it("names the missing package when the GPU backend is asked for", async () => {
    const err = await initBackend({ device: "gpu" }).catch((e: unknown) => e);
    expect(isTrainMcpError(err) && err.code).toBe("BackendUnavailable");
    expect(String((err as Error).message)).toMatch(/@tensorflow\/tfjs-node-gpu.*or use --device auto \(the default/);
  });

  it("refuses --device cpu without tfjs-node rather than training on wasm under that name", async () => {
    const err = await initBackend({ device: "cpu" }).catch((e: unknown) => e);
    expect(isTrainMcpError(err) && err.code).toBe("BackendUnavailable");
    expect(String((err as Error).message)).toBe(
      "--device cpu needs @tensorflow/tfjs-node (it downloads libtensorflow at install): `npm i @tensorflow/tfjs-node`; or use --device wasm (no native code; its heap stops at 4 GiB)",
    );
  });
});
