/**
 * `--template-dir` in training: a server whose state lives in files runs every instance on a copy
 * of the folder, so the warm start's reference calls (add_todo) and the rollouts never touch the
 * user's data; the run saves the folder, so a resume works on copies too; a missing folder is a
 * usage error before anything runs.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { ServerSet } from "../../src/train/servers.js";
import { stdioTarget } from "../servers/launch.js";
import { readJsonl, tempDir, tinyModelDir } from "./helpers.js";

describe("train --template-dir", () => {
  it("plays a file-backed server on copies of its folder, and saves the folder for a resume", async () => {
    const data = tempDir("todo-template");
    const todos = JSON.stringify([{ id: 1, title: "Buy milk", tag: "home" }, { id: 2, title: "Pay rent", tag: "home" }]);
    fs.writeFileSync(path.join(data, "todos.json"), todos);
    const scenarios = path.join(tempDir("todo-scenarios"), "todo.jsonl");
    const add = (id: string, title: string) => ({
      id, task: `Add a todo "${title}" tagged home.`, difficulty: 1, split: "train", tags: [],
      expected: [{ kind: "contains", value: title }],
      reference: { calls: [{ name: "add_todo", arguments: { title, tag: "home" } }], answer: `Added "${title}".` },
    });
    const count = { id: "t1", task: "How many todos are tagged home?", difficulty: 1, split: "test", tags: [], expected: [{ kind: "numeric", value: 2 }], reference: { calls: [{ name: "list_todos", arguments: { tag: "home" } }], answer: "2" } };
    fs.writeFileSync(scenarios, [add("a1", "Call mom"), add("a2", "Water plants"), count].map((s) => JSON.stringify(s)).join("\n") + "\n");
    const out = path.join(tempDir("todo-run"), "run");
    const base = { server: [stdioTarget("todo-file")], model: tinyModelDir(), scenarios: [scenarios], out, seed: 1, sft: "on", sft_steps: 1, sft_batch_size: 2, max_steps: 1, groups_per_step: 1, num_generations: 2, max_turns: 2, max_tokens_per_turn: 16, engine: "tfjs" };
    const logs: string[] = [];
    await train({ config: resolveTrainConfig({ ...base, server_template_dir: data }), hooks: { log: (l) => logs.push(l) } });
    // the warm start replayed both add_todo references for real, each on its own copy
    expect(logs).toContain("warm start: 2 demonstrations from reference solutions");
    expect(fs.readFileSync(path.join(data, "todos.json"), "utf8")).toBe(todos);
    expect(readJsonl(path.join(out, "trajectories.jsonl")).length).toBeGreaterThan(0);
    expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8")).server_template_dir).toBe(data);

    const missing = path.join(tempDir("none"), "gone");
    const out2 = path.join(tempDir("todo-run2"), "run");
    await expect(train({ config: resolveTrainConfig({ ...base, out: out2, server_template_dir: missing }), hooks: { log: () => undefined } })).rejects.toThrow(`--template-dir (server_template_dir): ${missing} is no folder`);
    expect(fs.existsSync(out2)).toBe(false);
  });

  it("warns once, naming them, when the template has symlinks leading out of it (each copy keeps them)", async () => {
    const template = tempDir("links-template");
    const outside = tempDir("links-outside");
    fs.writeFileSync(path.join(outside, "o.txt"), "outside");
    fs.writeFileSync(path.join(template, "in.txt"), "inside");
    fs.symlinkSync(path.join(outside, "o.txt"), path.join(template, "out.txt"));
    fs.symlinkSync("in.txt", path.join(template, "in-link.txt")); // inside: no warning
    const lines: string[] = [];
    const set = await ServerSet.connect([stdioTarget("everything"), stdioTarget("everything")], "off", { templateDir: template }, (l) => lines.push(l));
    await set.close();
    expect(lines.filter((l) => l.includes("symlinks"))).toEqual([
      `warning: --template-dir ${template} has symlinks that lead out of it (out.txt): each copy keeps them as they are, so a server writing through them changes the originals`,
    ]);
  });
});
