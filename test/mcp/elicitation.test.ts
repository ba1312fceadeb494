/**
 * MCP elicitation: a server's tool asks the user to fill in a form mid-call
 * (test/servers/everything.ts `book_table`, `delete_note`), answered as the user chose with
 * --elicitation: declined, cancelled, accepted with the server's defaults, or filled in by the
 * client's model — a real HTTP server speaking chat completions (test/helpers/chat-server.ts),
 * reached by the real `openai` client, over stdio and Streamable HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { formDefaults, parseForm } from "../../src/mcp/elicitation.js";
import type { ConnectOptions } from "../../src/mcp/options.js";
import { startChatServer, type ChatServer } from "../helpers/chat-server.js";
import { startEverything, stdioTarget, type HttpServer } from "../servers/launch.js";

const KEY = "sk-elicitation-test-0123456789";
let llm: ChatServer;
let reply = "";
const open: McpToolbox[] = [];
const servers: HttpServer[] = [];

beforeAll(async () => {
  llm = await startChatServer(() => (reply === "fail" ? { status: 500, error: `upstream broke for key ${KEY}` } : { content: reply }));
});
afterAll(async () => {
  await Promise.all(open.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
  await llm?.close();
});

async function toolbox(target: string, options: ConnectOptions): Promise<McpToolbox> {
  const tb = await connect(target, { timeoutMs: 10_000, ...options });
  open.push(tb);
  return tb;
}

async function serverWith(...flags: string[]): Promise<HttpServer> {
  const server = await startEverything("http", 0, ...flags);
  servers.push(server);
  return server;
}

const withModel = (): ConnectOptions => ({ elicitation: "model", sampling: { baseUrl: llm.url, model: "user-sim", apiKey: KEY } });

describe("elicitation forms from a server", () => {
  it("are not offered unless the user chose who answers: the server then hides its form tools", async () => {
    const tb = await toolbox(stdioTarget("everything", "--elicitation"), {});
    expect(tb.tools.map((t) => t.name)).toEqual(["echo"]);
  });

  it("are declined or cancelled as the user chose, and the tool carries on", async () => {
    const declining = await toolbox(stdioTarget("everything", "--elicitation"), { elicitation: "decline" });
    expect(declining.tools.map((t) => t.name)).toEqual(["echo", "book_table", "delete_note", "open_page"]);
    expect(await declining.call("book_table", { restaurant: "Luigi's" })).toMatchObject({ isError: false, text: "no booking: the user chose decline" });
    expect(await declining.call("delete_note", { note: "groceries" })).toMatchObject({ isError: true, text: "kept groceries (decline)" });
    const cancelling = await toolbox(stdioTarget("everything", "--elicitation"), { elicitation: "cancel" });
    expect((await cancelling.call("book_table", { restaurant: "Luigi's" })).text).toBe("no booking: the user chose cancel");
  });

  it("are accepted with the server's defaults, and declined when a required field has none", async () => {
    const tb = await toolbox(stdioTarget("everything", "--elicitation"), { elicitation: "defaults" });
    expect((await tb.call("delete_note", { note: "groceries" })).text).toBe("deleted groceries");
    expect((await tb.call("book_table", { restaurant: "Luigi's" })).text).toBe("no booking: the user chose decline");
    expect(formDefaults({ type: "object", properties: { a: { type: "string", default: "x" }, b: { type: "number" } } })).toEqual({ a: "x" });
  });

  it("are filled in by the client's model with the form as its response format; a reply off the form is a decline", async () => {
    const tb = await toolbox(stdioTarget("everything", "--elicitation"), withModel());
    reply = '{"name": "Ada", "guests": 4, "seating": "outside"}';
    const before = llm.requests.length;
    expect(await tb.call("book_table", { restaurant: "Luigi's" })).toMatchObject({ isError: false, text: "booked Luigi's for Ada, 4 guests, outside" });
    const sent = llm.requests[before];
    expect(sent.model).toBe("user-sim");
    expect(String(sent.messages[1].content)).toContain("Booking a table at Luigi's");
    expect(sent.response_format).toMatchObject({ type: "json_schema", json_schema: { schema: { required: ["name", "guests"] } } });
    expect(llm.headers[before].authorization).toBe(`Bearer ${KEY}`);
    // 13 guests is past the form's maximum; prose is not a form
    for (const off of ['{"name": "Ada", "guests": 13}', "Sure! Ada, 4 people.", '{"name": "Ada"}']) {
      reply = off;
      expect((await tb.call("book_table", { restaurant: "Luigi's" })).text).toBe("no booking: the user chose decline");
    }
    // a fenced reply is still the form
    reply = '```json\n{"name": "Bo", "guests": 2}\n```';
    expect((await tb.call("book_table", { restaurant: "Luigi's" })).text).toBe("booked Luigi's for Bo, 2 guests, inside");
  });

  it("are filled in knowing the task of the call, and never with a guess between two tasks", async () => {
    // a stand-in user that can only know the name from the task it is shown; from `holdFrom` on,
    // it answers nothing until two forms have arrived (both calls are then surely in flight)
    let holdFrom = Infinity;
    let held: Array<() => void> = [];
    const user = await startChatServer(async (req, i) => {
      if (i >= holdFrom)
        await new Promise<void>((ok) => {
          held.push(ok);
          if (held.length === 2) held.forEach((release) => release());
          setTimeout(ok, 5000);
        });
      const text = String(req.messages[1].content);
      const name = /for (\w+ \w+), party of (\d+)/.exec(text);
      return { content: name ? JSON.stringify({ name: name[1], guests: Number(name[2]), seating: "outside" }) : '{"name": "Someone", "guests": 2}' };
    });
    try {
      for (const target of [stdioTarget("everything", "--elicitation"), (await serverWith("--elicitation")).url]) {
        const tb = await toolbox(target, { elicitation: "model", sampling: { baseUrl: user.url, model: "user-sim" } });
        const task = "Book a table at Luigi's for Grace Hopper, party of 3.";
        expect((await tb.call("book_table", { restaurant: "Luigi's" }, { task })).text).toBe("booked Luigi's for Grace Hopper, 3 guests, outside");
        expect(String(user.requests.at(-1)!.messages[1].content)).toMatch(/^The user's request to the assistant:\nBook a table at Luigi's for Grace Hopper, party of 3\.\n\nThe tool asks: Booking a table/);
        // no task given: the form is filled in without one, as before
        expect((await tb.call("book_table", { restaurant: "Luigi's" })).text).toBe("booked Luigi's for Someone, 2 guests, inside");
        // a group's members share their task on a shared server: each form knows it
        const group = await Promise.all([1, 2].map(() => tb.call("book_table", { restaurant: "Luigi's" }, { task })));
        expect(group.map((r) => r.text)).toEqual(["booked Luigi's for Grace Hopper, 3 guests, outside", "booked Luigi's for Grace Hopper, 3 guests, outside"]);
        // two tasks in flight on one connection when both forms arrive: neither form gets a task
        const before = user.requests.length;
        [holdFrom, held] = [before, []];
        const both = await Promise.all([task, "Book a table at Luigi's for Alan Turing, party of 5."].map((t) => tb.call("book_table", { restaurant: "Luigi's" }, { task: t })));
        holdFrom = Infinity;
        expect(both.map((r) => r.text)).toEqual(["booked Luigi's for Someone, 2 guests, inside", "booked Luigi's for Someone, 2 guests, inside"]);
        expect(user.requests.slice(before).map((r) => String(r.messages[1].content))).toEqual([expect.stringMatching(/^The tool asks/), expect.stringMatching(/^The tool asks/)]);
        // each isolated instance answers for its own rollout's task
        const child = await tb.isolated();
        expect((await child.call("book_table", { restaurant: "Luigi's" }, { task: "Book a table at Luigi's for Alan Turing, party of 5." })).text).toBe("booked Luigi's for Alan Turing, 5 guests, outside");
        await child.close();
      }
    } finally {
      await user.close();
    }
  });

  it("reach the server as an error without the key when the model's endpoint fails, and the session goes on", async () => {
    const tb = await toolbox(stdioTarget("everything", "--elicitation"), withModel());
    reply = "fail";
    const failed = await tb.call("book_table", { restaurant: "Luigi's" });
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain("the client's model (user-sim) failed to answer the form");
    expect(failed.text).not.toContain(KEY);
    expect(await tb.call("echo", { text: "still here" })).toMatchObject({ isError: false, text: "still here" });
  });

  it("never include URL mode: a server's request to open a page is refused", async () => {
    const tb = await toolbox(stdioTarget("everything", "--elicitation"), { elicitation: "decline" });
    const r = await tb.call("open_page", {});
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/cannot ask: .*url/i);
  });

  it("reach the client over Streamable HTTP too, in the main and an isolated session", async () => {
    const server = await startEverything("http", 0, "--elicitation");
    servers.push(server);
    const tb = await toolbox(server.url, { elicitation: "defaults" });
    expect((await tb.call("delete_note", { note: "a" })).text).toBe("deleted a");
    const child = await tb.isolated();
    expect((await child.call("delete_note", { note: "b" })).text).toBe("deleted b");
    await child.close();
  });

  it("need a model named for `model` mode", async () => {
    await expect(connect(stdioTarget("everything", "--elicitation"), { elicitation: "model" })).rejects.toThrow(/--elicitation model .*--sampling-model/);
  });
});

describe("parseForm", () => {
  const schema = { type: "object", properties: { tags: { type: "array", items: { type: "string" } }, n: { type: "number" } }, required: ["n"] };
  it("takes one JSON object that matches the form, with string lists", () => {
    expect(parseForm('{"n": 2, "tags": ["a", "b"]}', schema)).toEqual({ n: 2, tags: ["a", "b"] });
    expect(parseForm('{"n": 2, "tags": [1]}', schema)).toBeUndefined();
    expect(parseForm('{"n": {"x": 1}}', { type: "object", properties: { n: {} } })).toBeUndefined();
    expect(parseForm("[2]", schema)).toBeUndefined();
  });
});
