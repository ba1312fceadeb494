/**
 * Scenario generation against a server that dies on every call (test/servers/crash-calc.ts, as
 * mcp-server-mysql does on a refused database login): it stops after a dozen lost connections in
 * a row instead of restarting the server for every attempt of every recipe, and says why the
 * server went in the server's own words.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { errorLineOf, generateVerified } from "../../src/scenarios/verified/generate.js";
import { stdioTarget } from "../servers/launch.js";

const boxes: Toolbox[] = [];
afterAll(async () => {
  for (const b of boxes) await b.close();
});

describe("a server that dies on every call", () => {
  it("stops generating after a dozen lost connections in a row, quoting the server's last stderr words", async () => {
    const box = await connect(stdioTarget("crash-calc"));
    boxes.push(box);
    const error = await generateVerified(box, { n: 40, seed: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "TrainMcpError", code: "ServerUnreachable" });
    const message = (error as Error).message;
    expect(message).toMatch(/^the server lost the connection on \d+ calls in a row and answered none; (\d+) of \1 calls answered with an error/);
    expect(message).toContain("connection lost: server exited");
    expect(message).toContain("outage: crashing on purpose");
    // it gave up early: not hundreds of restarts
    const made = Number(/; (\d+) of/.exec(message)![1]);
    expect(made).toBeLessThan(40);
  }, 120_000);

  it("keeps going past lost connections when the server answers between them", async () => {
    // every third call dies; the others answer (with a number no calculator task expects, so nothing is built)
    const box = await connect(stdioTarget("crash-calc", "--crash-every", "3"));
    boxes.push(box);
    const error = await generateVerified(box, { n: 6, seed: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "TrainMcpError", code: "ConfigInvalid" });
    const [, failed, made] = /; (\d+) of (\d+) calls answered with an error/.exec((error as Error).message)!.map(Number);
    expect(made).toBeGreaterThan(60);
    expect(failed).toBeLessThan(made / 2);
  }, 120_000);

  it("words a lost connection by why the server went", () => {
    expect(errorLineOf("connection to the server lost during query: MCP error -32000: Connection closed (server exited with code 1; stderr: Access denied for user 'app'); the next call reconnects")).toBe(
      "connection lost: server exited with code 1; stderr: Access denied for user 'app'",
    );
    expect(errorLineOf("connection to the server lost during query: socket hang up; the next call reconnects")).toBe("connection to the server lost during query: socket hang up; the next call reconnects");
    expect(errorLineOf("### Error\nError: No open pages available")).toBe("Error: No open pages available");
  });
});
