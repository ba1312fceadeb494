import { spawn } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { calculatorScenarios, tinyModelDir } from "./helpers.js";

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS"));
    const child = spawn(process.execPath, ["bin/train-mcp.mjs", ...args], { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("train-mcp eval", () => {
  let a: string;
  let b: string;
  let scenarios: string;
  beforeAll(() => {
    a = tinyModelDir(11);
    b = tinyModelDir(12);
    scenarios = calculatorScenarios(2, 5);
  });

  it("scores two checkpoints side by side on the same held-out scenarios, with pass@k", async () => {
    const r = await cli(["eval", "--model", a, "--model", b, "--server", "fixture:calculator", "--scenarios", scenarios, "--k", "2", "--max-tokens-per-turn", "8", "--engine", "tfjs", "--json"]);
    expect(r.stderr).not.toMatch(/train-mcp:/);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((x) => x.model)).toEqual([a, b]);
    for (const row of rows) {
      expect(row.n).toBe(5);
      for (const k of ["success_rate", "mean_reward", "mean_turns", "pass@2"]) expect(typeof row[k]).toBe("number");
      expect(row["pass@2"] as number).toBeGreaterThanOrEqual(row.success_rate as number);
    }
  });

  it("exits 2 for a model folder that does not exist", async () => {
    const r = await cli(["eval", "--model", "/nope", "--server", "fixture:calculator", "--scenarios", scenarios]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
