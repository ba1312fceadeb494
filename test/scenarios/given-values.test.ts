/**
 * `--value NAME=VALUE`: values the user gives for arguments no tool's result reveals. A fetch
 * server (test/servers/http-get.ts, fetching for real from a local HTTP server of station pages)
 * gets tasks on the pages given, answered from what each page says, one per field of a page
 * (station, elevation, operator); a name no argument has is refused with the names there are.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { parseGivenValues } from "../../src/scenarios/verified/given-values.js";
import { loadScenarios } from "../../src/train/scenario-source.js";
import { ServerSet } from "../../src/train/servers.js";
import { replaysOnFresh } from "../helpers/checks-after.js";
import { cli } from "../train/helpers.js";
import { stdioTarget } from "../servers/launch.js";

const PAGES: Record<string, Record<string, string | number>> = {
  "/stations/oslo.json": { station: "Oslo Blindern", elevation_m: 94, operator: "MET Norway" },
  "/stations/bergen.json": { station: "Bergen Florida", elevation_m: 12, operator: "MET Norway" },
  "/stations/tromso.json": { station: "Tromsø Langnes", elevation_m: 8, operator: "Avinor" },
};
let site: http.Server;
let base = "";
let box: Toolbox | undefined;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const page = PAGES[req.url ?? ""];
    res.writeHead(page ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(page ?? { error: "not found" }));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(async () => {
  await box?.close();
  await new Promise((resolve) => site.close(resolve));
});

describe("values given for arguments", () => {
  it("builds fetch tasks on the pages given, each answered from its own page, and they replay", async () => {
    box = await connect(stdioTarget("http-get"));
    const urls = Object.keys(PAGES).map((p) => `${base}${p}`);
    const { scenarios } = await generateVerified(box, { n: 3, seed: 1, values: parseGivenValues(urls.map((u) => `url=${u}`), box.tools) });
    expect(scenarios).toHaveLength(3);
    // a page has several fields to ask about, so three tasks need not fetch three pages
    for (const s of scenarios) expect(urls).toContain(s.reference!.calls[0].arguments.url);
    for (const s of scenarios) {
      const page = PAGES[new URL(String(s.reference!.calls[0].arguments.url)).pathname];
      const check = s.expected![0] as { value: string | number };
      expect(Object.values(page).map(String), s.task).toContain(String(check.value));
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
    }
  }, 60_000);

  it("train --scenarios auto generates on the pages given (argument_values), and refuses a name no server's tool takes", async () => {
    const set = await ServerSet.connect([stdioTarget("http-get")], "auto");
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "given-values-run-"));
    try {
      const urls = Object.keys(PAGES).map((p) => `${base}${p}`);
      const data = await loadScenarios(["auto"], set, { seed: 1, runDir, log: () => undefined, generateN: 3, values: { url: urls } });
      const asked = [...data.train, ...data.test].map((s) => String(s.reference!.calls[0].arguments.url));
      expect(asked.length).toBeGreaterThanOrEqual(3);
      expect(asked.every((u) => urls.includes(u))).toBe(true);
      await expect(loadScenarios(["auto"], set, { seed: 1, runDir, log: () => undefined, generateN: 3, values: { link: urls } })).rejects.toThrow(/--value link=…: no tool of the server takes an argument named "link" \(their arguments: url\)/);
    } finally {
      await Promise.all(set.entries.map((e) => e.toolbox.close()));
      fs.rmSync(runDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("train --value without a name is a usage error (exit 2) before any server starts", async () => {
    const r = await cli(["train", "--server", "fixture:calculator", "--value", "http://127.0.0.1:9/", "--steps", "1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--value "http:\/\/127\.0\.0\.1:9\/": expected NAME=VALUE/);
  });

  it("asks about each field of a page, not only the first: three pages give more than three tasks, each named and answered from its own page", async () => {
    box ??= await connect(stdioTarget("http-get"));
    const urls = Object.keys(PAGES).map((p) => `${base}${p}`);
    const { scenarios } = await generateVerified(box, { n: 7, seed: 1, values: parseGivenValues(urls.map((u) => `url=${u}`), box.tools) });
    expect(scenarios).toHaveLength(7);
    const labels: Record<string, string> = { station: "station", "elevation (m)": "elevation_m", operator: "operator" };
    const asked = new Set<string>();
    for (const s of scenarios) {
      const page = PAGES[new URL(String(s.reference!.calls[0].arguments.url)).pathname];
      // "… What is the elevation (m)?", "… Report the operator.", "… Tell me the station."
      const label = /the ([\w ()]+)[?.]$/.exec(s.task)?.[1] ?? "";
      expect(Object.keys(labels), s.task).toContain(label);
      const check = s.expected![0] as { value: string | number };
      expect(String(check.value), s.task).toBe(String(page[labels[label]]));
      asked.add(label);
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
    }
    expect(asked.size).toBeGreaterThan(1);
    expect(new Set(scenarios.map((s) => s.reference!.calls[0].arguments.url)).size).toBe(3);
  }, 60_000);

  it("refuses a name no tool's argument has, and a value without a name", () => {
    const tools = [{ name: "http_get", description: "", inputSchema: { type: "object", properties: { url: { type: "string" }, headers: { type: "object", properties: { accept: { type: "string" } } } } } }];
    expect(parseGivenValues(["url=http://a/", "url=http://b/?x=1", "accept=text/html"], tools)).toEqual({ url: ["http://a/", "http://b/?x=1"], accept: ["text/html"] });
    expect(() => parseGivenValues(["ulr=http://a/"], tools)).toThrow(/--value ulr=…: no tool of the server takes an argument named "ulr" \(their arguments: accept, headers, url\)/);
    expect(() => parseGivenValues(["http://a/"], tools)).toThrow(/expected NAME=VALUE/);
    expect(() => parseGivenValues(["=x"], tools)).toThrow(/expected NAME=VALUE/);
    // a credential would be written into every task's calls in the scenario file
    const withSecrets = [{ name: "search", description: "", inputSchema: { type: "object", properties: { api_key: { type: "string" }, accessToken: { type: "string" }, key: { type: "string" }, sort_key: { type: "string" } } } }];
    for (const name of ["api_key", "accessToken"]) expect(() => parseGivenValues([`${name}=sk-test-123456`], withSecrets), name).toThrow(/names a credential, .* by --env or --header instead/);
    expect(parseGivenValues(["key=user:1", "sort_key=name"], withSecrets)).toEqual({ key: ["user:1"], sort_key: ["name"] });
  });
});
