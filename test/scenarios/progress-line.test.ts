/**
 * Generation progress: the generator reports built and tried after every batch of attempts (a
 * server that gives little shows as attempts without scenarios), and where there is no bar a line
 * is written every 30 s.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { progressLines } from "../../src/scenarios/verified/progress-line.js";
import { stdioTarget } from "../servers/launch.js";

let box: Toolbox | undefined;
afterAll(async () => {
  await box?.close();
});

describe("generation progress", () => {
  it("is reported after every batch of attempts, tried counting the failed ones too", async () => {
    box = await connect(stdioTarget("notes"));
    const seen: Array<[number, number, number]> = [];
    const { scenarios } = await generateVerified(box, { n: 6, seed: 1, concurrency: 2, acceptFewer: true, onProgress: (d, t, tried) => seen.push([d, t, tried]) });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.every(([, total]) => total === 6)).toBe(true);
    // built and tried only grow, tried by a batch (2) at a time, and built never passes tried
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i][0]).toBeGreaterThanOrEqual(seen[i - 1][0]);
      expect(seen[i][2] - seen[i - 1][2]).toBeGreaterThan(0);
      expect(seen[i][2] - seen[i - 1][2]).toBeLessThanOrEqual(2);
    }
    expect(seen.every(([done, , tried]) => done <= tried)).toBe(true);
    expect(seen.at(-1)![0]).toBe(scenarios.length);
  }, 60_000);

  it("writes a line at most every 30 s, with built, tried and seconds", () => {
    let t = 1_000_000;
    const lines: string[] = [];
    const update = progressLines("scenarios (verified)", (l) => lines.push(l), 30, () => t);
    update(0, 200, 4);
    t += 29_000;
    update(1, 200, 40);
    expect(lines).toEqual([]);
    t += 2_000;
    update(2, 200, 44);
    t += 10_000;
    update(3, 200, 48);
    t += 30_000;
    update(5, 200, 90);
    expect(lines).toEqual(["scenarios (verified): 2 of 200 built, 44 tried (31 s)", "scenarios (verified): 5 of 200 built, 90 tried (71 s)"]);
  });
});
