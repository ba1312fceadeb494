/**
 * A start that fails on input checkable in a moment (the model folder, --template-dir, a
 * scenario file), on a server that does not start or on a judge that is not there fails before
 * anything is written: no run directory is made, and an --out that existed is not touched at all
 * (not even written and cleaned up again).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { startChatServer } from "../helpers/chat-server.js";
import { calculatorScenarios, tempDir, tinyModelDir } from "./helpers.js";

/** Every entry under `dir` with its mtime: what a failing start must leave exactly as it was. */
function snapshot(dir: string): Record<string, number> {
  const out: Record<string, number> = { ".": fs.statSync(dir).mtimeMs };
  for (const e of fs.readdirSync(dir, { recursive: true }) as string[]) out[e] = fs.statSync(path.join(dir, e)).mtimeMs;
  return out;
}

/** An --out the user made beforehand, empty but for an empty checkpoints/, all dated a day back
 *  (a folder with the user's own files in it is refused outright: test/train/run-dir.test.ts). */
function existingOut(): string {
  const dir = tempDir("existing-out");
  fs.mkdirSync(path.join(dir, "checkpoints"));
  const past = new Date(Date.now() - 86_400_000);
  for (const p of [path.join(dir, "checkpoints"), dir]) fs.utimesSync(p, past, past);
  return dir;
}

async function failedStart(overrides: Record<string, unknown>, out: string): Promise<{ error: unknown; logs: string[] }> {
  const logs: string[] = [];
  const config = resolveTrainConfig({ server: ["fixture:calculator"], model: tinyModelDir(), scenarios: [calculatorScenarios(2, 1)], out, max_steps: 1, sft: "off", engine: "tfjs", ...overrides });
  const error = await train({ config, hooks: { log: (l) => logs.push(l) } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, logs };
}

describe("a start that fails its quick checks", () => {
  it("an unknown model folder: usage error, an existing --out untouched, a new one never made", async () => {
    const out = existingOut();
    const before = snapshot(out);
    const { error, logs } = await failedStart({ model: "/no/such/model" }, out);
    expect(error).toBeInstanceOf(TrainMcpError);
    expect((error as TrainMcpError).usage).toBe(true);
    expect((error as Error).message).toContain("--model /no/such/model: no such folder");
    expect(snapshot(out)).toEqual(before);
    expect(logs.filter((l) => l.includes("run directory"))).toEqual([]);

    const fresh = path.join(tempDir("fresh-out"), "a", "run");
    await failedStart({ model: "/no/such/model" }, fresh);
    expect(fs.existsSync(path.dirname(fresh))).toBe(false);
  });

  it("a --template-dir that is no folder, or a scenario file with a bad line: the same", async () => {
    const out = existingOut();
    const before = snapshot(out);
    const t = await failedStart({ server_template_dir: path.join(out, "nope") }, out);
    expect((t.error as Error).message).toContain("is no folder");
    expect(snapshot(out)).toEqual(before);

    const bad = path.join(tempDir("bad-scenarios"), "bad.jsonl");
    fs.writeFileSync(bad, `{"id": "x", "task": "t", "difficulty": 9, "split": "train"}\n`);
    const s = await failedStart({ scenarios: [bad] }, out);
    expect((s.error as TrainMcpError).code).toBe("ScenarioInvalid");
    expect((s.error as Error).message).toMatch(/bad\.jsonl:1: field "difficulty"/);
    expect(snapshot(out)).toEqual(before);
  });

  it("a server that does not start, or a judge endpoint that is gone: the same", async () => {
    const out = existingOut();
    const before = snapshot(out);
    const server = await failedStart({ server: [`stdio:${path.join(out, "no-such-server")}`] }, out);
    expect(server.error).toBeInstanceOf(TrainMcpError);
    expect(snapshot(out)).toEqual(before);

    const gone = await startChatServer(() => ({ content: "{}" }));
    await gone.close();
    const judge = await failedStart({ rewards: { judge: { model: "j", baseURL: gone.url } } }, out);
    expect((judge.error as Error).message).toMatch(/^--judge-base-url .*: cannot connect/);
    expect(snapshot(out)).toEqual(before);
    expect(judge.logs.filter((l) => l.includes("run directory"))).toEqual([]);
  });
});
