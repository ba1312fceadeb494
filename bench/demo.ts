/**
 * `npm run bench:demo`: reproduces the README's main command (`train-mcp`, the offline demo) and
 * prints what the learning bar is judged by: held-out success before and after RL, the
 * gain in points, the number of held-out scenarios, and the wall time, for each run and as
 * medians. The last line is one JSON object.
 *
 * Flags: --runs N (default 1; each run is a full demo, up to 15 minutes on 2 cores),
 * --keep (leave the run directories; default: removed after reading their summary).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const flag = (name: string, dflt: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || dflt : dflt);
const runs = flag("--runs", 1);
const keep = args.includes("--keep");
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

interface Row {
  heldout_before: number;
  heldout_after: number;
  heldout_n: number;
  wall_s: number;
  run_dir: string;
  /** how the held-out rollouts used the tools before and after RL (src/train/loop.ts) */
  heldout_tool_use?: { before?: { rollouts: number; without_tool: number }; after?: { rollouts: number; without_tool: number } };
}
const noTool = (u: { rollouts: number; without_tool: number }) => `${((100 * u.without_tool) / Math.max(1, u.rollouts)).toFixed(0)}%`;
const rows: Row[] = [];
for (let i = 1; i <= runs; i++) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-bench-demo-"));
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [path.join(root, "bin/train-mcp.mjs"), "--json", "--quiet", "--out", path.join(out, "run")], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const wall = (performance.now() - t0) / 1000;
  const last = r.stdout.trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !last.startsWith("{")) {
    process.stderr.write(`run ${i}: train-mcp exited ${r.status}\n${r.stdout.slice(-2000)}\n`);
    process.exit(1);
  }
  const s = JSON.parse(last) as Row;
  rows.push(s);
  console.log(
    `run ${i}: held-out ${(s.heldout_before * 100).toFixed(1)}% -> ${(s.heldout_after * 100).toFixed(1)}% ` +
      `(${((s.heldout_after - s.heldout_before) * 100).toFixed(1)} points, n=${s.heldout_n}), ${s.wall_s.toFixed(0)} s in the trainer, ${wall.toFixed(0)} s with start-up` +
      (s.heldout_tool_use?.before && s.heldout_tool_use.after ? `; answered without a tool ${noTool(s.heldout_tool_use.before)} -> ${noTool(s.heldout_tool_use.after)}` : ""),
  );
  if (!keep) fs.rmSync(out, { recursive: true, force: true });
}
const before = median(rows.map((r) => r.heldout_before));
const after = median(rows.map((r) => r.heldout_after));
console.log(
  JSON.stringify({
    runs,
    cores: os.availableParallelism(),
    heldout_n: rows[0].heldout_n,
    heldout_before: before,
    heldout_after: after,
    gain_points: +((median(rows.map((r) => r.heldout_after - r.heldout_before)) * 100).toFixed(1)),
    wall_s: +median(rows.map((r) => r.wall_s)).toFixed(1),
    meets_bar: after - before >= 0.15 && after >= 0.8 && rows[0].heldout_n >= 100 && median(rows.map((r) => r.wall_s)) <= 900,
  }),
);
