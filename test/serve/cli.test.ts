/**
 * The real `train-mcp serve` command: it prints its URL and serves; a second one on the same
 * port exits 2 naming the port; an unknown model folder exits 2; SIGTERM shuts it down cleanly;
 * --quiet keeps warnings (an --adapter trained on another base); an --adapter folder linked to a
 * private file fails naming it, never quoting it.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { readModelConfig } from "../../src/policy/weights.js";
import { makeAdapter } from "./adapter.js";
import { untrainedDefaultModelDir } from "../train/helpers.js";

const BIN = path.resolve("bin/train-mcp.mjs");

describe("train-mcp serve (CLI)", () => {
  it("exits 2 on an unknown model folder", () => {
    const r = spawnSync(process.execPath, [BIN, "serve", "--model", "/no/such/model-dir", "--port", "0"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--model \/no\/such\/model-dir: no such folder/);
  });

  it("exits 2 on a --served-model-name no request could give (empty, or with spaces around it)", () => {
    for (const name of ["", " default"]) {
      const r = spawnSync(process.execPath, [BIN, "serve", "--model", "default", "--port", "0", "--served-model-name", name], { encoding: "utf8" });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`train-mcp: --served-model-name ${JSON.stringify(name)}: give a name without spaces around it, as requests' "model" will spell it\n`);
    }
  });

  it("exits 2 naming --prefix-cache-mib when it is not a size", () => {
    const r = spawnSync(process.execPath, [BIN, "serve", "--model", "default", "--port", "0", "--prefix-cache-mib", "-5"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--prefix-cache-mib expects a whole number from 0 to 1048576, got "-5"');
  });

  it("sizes the prefix store with --prefix-cache-mib, and turns it off at 0", async () => {
    const startLine = (args: string[]) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, "serve", "--model", "default", "--port", "0", "--quiet", "--engine", "ort", ...args], { stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("\n")) {
            child.kill("SIGTERM");
            resolve(out.split("\n")[0]);
          }
        });
        child.on("exit", (code) => reject(new Error(`serve exited early (${code})`)));
      });
    expect(await startLine(["--prefix-cache-mib", "64"])).toMatch(/\(models: default; engine: ort, prefix caching on: 16384 tokens per model, 64 MiB\)$/); // keys and values x 4 layers x 2 KV heads x 64 x 4 bytes = 4 KiB a token
    expect(await startLine(["--prefix-cache-mib", "0"])).toMatch(/\(models: default; engine: ort, prefix caching off\)$/);
  });

  it("with --quiet still warns that an --adapter was trained on another base model", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-cli-lora-"));
    await makeAdapter(dir, readModelConfig(defaultModelDir()), 7, "Qwen/Qwen2.5-0.5B-Instruct");
    const child = spawn(process.execPath, [BIN, "serve", "--model", "default", "--port", "0", "--quiet", "--engine", "ort", "--adapter", `mine=${dir}`], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("(models: default, mine;")) resolve();
        });
        child.on("exit", (code) => reject(new Error(`serve exited early (${code}): ${err}`)));
      });
      // stderr is its own pipe: give it a moment to arrive after the start line
      for (let i = 0; i < 40 && !err.includes("\n"); i++) await new Promise((r) => setTimeout(r, 50));
      expect(err).toContain(`warning: LoRA adapter "mine" (${dir}) was trained on base model "Qwen/Qwen2.5-0.5B-Instruct"`);
      expect(err).toContain(`this server's base model is ${defaultModelDir()} (served as "default")`);
    } finally {
      child.kill("SIGTERM");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 on an --adapter folder linked to another file, naming the file but never quoting it", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "serve-cli-leak-"));
    const secret = path.join(tmp, "secret.txt");
    fs.writeFileSync(secret, "root:x:0:0:TOPSECRET-line-of-a-private-file\n".repeat(20));
    try {
      for (const linked of ["adapter_config.json", "adapter_model.safetensors"]) {
        const dir = path.join(tmp, linked);
        await makeAdapter(dir, readModelConfig(defaultModelDir()));
        fs.rmSync(path.join(dir, linked));
        fs.symlinkSync(secret, path.join(dir, linked));
        const r = spawnSync(process.execPath, [BIN, "serve", "--model", "default", "--port", "0", "--quiet", "--engine", "tfjs", "--adapter", `mine=${dir}`], { encoding: "utf8" });
        expect(r.status, r.stderr).toBe(2);
        expect(r.stderr).toContain(linked === "adapter_config.json" ? `${dir}/adapter_config.json: not valid JSON` : `${dir}/adapter_model.safetensors: not a safetensors file`);
        expect(r.stderr).not.toMatch(/root|TOPSECRET|\d{12,}/);
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("serves, refuses a busy port with exit 2, and stops on SIGTERM", async () => {
    // the key from the environment: `ps` would show a --api-key
    const child = spawn(process.execPath, [BIN, "serve", "--model", "default", "--port", "0", "--quiet", "--engine", "ort", "--no-enable-prefix-caching"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TRAIN_MCP_API_KEY: "sk-env-key" },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /(http:\/\/127\.0\.0\.1:\d+\/v1) \(models: default; engine: ort, prefix caching off\)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.on("exit", (code) => reject(new Error(`serve exited early (${code})`)));
      });
      expect((await fetch(`${url}/models`)).status).toBe(401);
      const models = (await (await fetch(`${url}/models`, { headers: { authorization: "Bearer sk-env-key" } })).json()) as { data: Array<{ id: string }> };
      expect(models.data[0].id).toBe("default");
      const port = new URL(url).port;
      const busy = spawnSync(process.execPath, [BIN, "serve", "--model", "default", "--port", port], { encoding: "utf8" });
      expect(busy.stdout).toBe(""); // it never got to serve
      expect(busy.status).toBe(2);
      expect(busy.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      const code = await new Promise<number | null>((resolve) => {
        child.once("exit", (c) => resolve(c));
        child.kill("SIGTERM");
      });
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
  it("on SIGTERM lets a stream in flight finish (its [DONE] sent) before it exits", async () => {
    const model = untrainedDefaultModelDir(2); // random weights: it writes until max_tokens
    const child = spawn(process.execPath, [BIN, "serve", "--model", model, "--served-model-name", "default", "--port", "0", "--quiet", "--engine", "ort"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /(http:\/\/127\.0\.0\.1:\d+\/v1) /.exec(out);
          if (m) resolve(m[1]);
        });
        child.on("exit", (code) => reject(new Error(`serve exited early (${code})`)));
      });
      const res = await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "default", messages: [{ role: "user", content: "go" }], max_tokens: 300, stream: true, seed: 1 }),
      });
      const reader = res.body!.getReader();
      let text = new TextDecoder().decode((await reader.read()).value);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
      child.kill("SIGTERM"); // the first chunk is in: the stream is running
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect(text).toContain('"finish_reason":"length"');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
