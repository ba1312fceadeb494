/**
 * MCP sampling: a server's tool asks the client's model for a completion mid-call
 * (test/servers/everything.ts `summarize`), answered from an OpenAI-compatible endpoint the user
 * names: a real HTTP server speaking chat completions (test/helpers/chat-server.ts), reached by
 * the real `openai` client, over stdio and Streamable HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import type { SamplingEndpoint } from "../../src/mcp/sampling.js";
import { startChatServer, type ChatServer } from "../helpers/chat-server.js";
import { startEverything, stdioTarget, type HttpServer } from "../servers/launch.js";

const KEY = "sk-sampling-test-0123456789";
let llm: ChatServer;
const open: McpToolbox[] = [];
const servers: HttpServer[] = [];

// the text of a message, whether one string or content parts
const textOf = (content: unknown): string =>
  Array.isArray(content) ? content.map((p: { type: string; text?: string }) => (p.type === "text" ? p.text : `<${p.type}>`)).join("\n") : String(content ?? "");
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const b64 = (s: string) => Buffer.from(s).toString("base64");

beforeAll(async () => {
  llm = await startChatServer((req) => {
    const user = textOf(req.messages.at(-1)?.content);
    if (user.includes("please fail")) return { status: 500, error: `upstream broke for key ${KEY}` };
    if (user.includes("cut short")) return { content: "a summ", finishReason: "length" };
    if (user.includes("no choices")) return { body: { id: "c", object: "chat.completion", created: 0, model: "m-test", choices: [] } };
    return { content: "a short summary" };
  });
});
afterAll(async () => {
  await Promise.all(open.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
  await llm?.close();
});

async function toolbox(target: string, sampling?: Partial<SamplingEndpoint>): Promise<McpToolbox> {
  const tb = await connect(target, { timeoutMs: 10_000, sampling: sampling && { baseUrl: llm.url, model: "m-test", apiKey: KEY, ...sampling } });
  open.push(tb);
  return tb;
}

describe("sampling requests from a server", () => {
  it("are answered by the named model, with the server's model choice, token appetite and context request ignored", async () => {
    const tb = await toolbox(stdioTarget("everything", "--sampling"), { maxTokens: 64 });
    expect(tb.tools.map((t) => t.name)).toEqual(["echo", "summarize"]);
    const before = llm.requests.length;
    expect(await tb.call("summarize", { text: "a very long text", max_tokens: 5000 })).toEqual({ isError: false, text: "m-test (endTurn): a short summary", truncated: false });
    expect(await tb.call("summarize", { text: "short", max_tokens: 7, stop: "END" })).toMatchObject({ isError: false });
    const [big, small] = llm.requests.slice(before);
    expect(big).toMatchObject({
      model: "m-test",
      max_tokens: 64, // the cap, not the 5000 asked for
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "Summarize: a very long text" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] },
      ],
    });
    expect(small).toMatchObject({ max_tokens: 7, stop: ["END"] });
    expect(llm.headers[before].authorization).toBe(`Bearer ${KEY}`);
  });

  it("send a user turn's images and WAV/MP3 audio as content parts, and placeholders for what the API cannot take", async () => {
    const tb = await toolbox(stdioTarget("everything", "--sampling"), {});
    const before = llm.requests.length;
    expect((await tb.call("summarize", { text: "media", media: true })).text).toBe("m-test (endTurn): a short summary");
    expect(llm.requests[before].messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Draw a dot." },
      // an assistant turn takes text only
      { role: "assistant", content: "[image: image/png, 68 bytes]" },
      {
        role: "user",
        content: [
          { type: "text", text: "Summarize: media" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "input_audio", input_audio: { data: b64("RIFF-wav"), format: "wav" } },
          { type: "input_audio", input_audio: { data: b64("ID3-mp3"), format: "mp3" } },
          { type: "text", text: "[audio: audio/ogg, 4 bytes]\n[image: image/svg+xml, 6 bytes]" },
        ],
      },
    ]);
  });

  it("fall back to placeholders for an endpoint that refuses media, and then send it text alone", async () => {
    const textModel = await startChatServer((req) =>
      req.messages.some((m) => Array.isArray(m.content)) ? { status: 400, error: "this model does not accept image_url content" } : { content: "ok" },
    );
    try {
      const tb = await connect(stdioTarget("everything", "--sampling"), { timeoutMs: 10_000, sampling: { baseUrl: textModel.url, model: "m" } });
      open.push(tb);
      expect((await tb.call("summarize", { text: "one" })).text).toBe("m (endTurn): ok");
      expect((await tb.call("summarize", { text: "two" })).text).toBe("m (endTurn): ok");
      // refused with the image, answered without it; the next request goes as text at once
      expect(textModel.requests.map((r) => r.messages.at(-1)!.content)).toEqual([
        [{ type: "text", text: "Summarize: one" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }],
        "Summarize: one\n[image: image/png, 68 bytes]",
        "Summarize: two\n[image: image/png, 68 bytes]",
      ]);
    } finally {
      await textModel.close();
    }
  });

  it("report a cut-off completion as maxTokens, and an endpoint failure to the server as an error without the key", async () => {
    const tb = await toolbox(stdioTarget("everything", "--sampling"), {});
    expect((await tb.call("summarize", { text: "cut short" })).text).toBe("m-test (maxTokens): a summ");
    const failed = await tb.call("summarize", { text: "please fail" });
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain("the client's sampling model (m-test) failed");
    expect(failed.text).not.toContain(KEY);
    expect(await tb.call("summarize", { text: "no choices" })).toMatchObject({ isError: true, text: expect.stringContaining("the client's sampling model (m-test) returned no completion") });
    // the error's prefix once, not repeated by the server
    expect(failed.text).not.toMatch(/(MCP error -?\d+: ).*\1/);
    // the session goes on
    expect(await tb.call("echo", { text: "still here" })).toMatchObject({ isError: false, text: "still here" });
  });

  it("reach an endpoint whose URL carries a query (Azure's api-version) or credentials, sent as the client must", async () => {
    const tb = await toolbox(stdioTarget("everything", "--sampling"), { baseUrl: `${llm.url}?api-version=2024-06-01`, apiKey: undefined });
    const before = llm.requests.length;
    expect((await tb.call("summarize", { text: "query" })).text).toBe("m-test (endTurn): a short summary");
    expect(llm.queries.at(-1)).toBe("api-version=2024-06-01");
    const basic = await toolbox(stdioTarget("everything", "--sampling"), { baseUrl: llm.url.replace("http://", "http://ann:pa%20ss@"), apiKey: undefined });
    expect((await basic.call("summarize", { text: "basic" })).isError).toBe(false);
    expect(llm.headers.at(-1)!.authorization).toBe(`Basic ${Buffer.from("ann:pa ss").toString("base64")}`);
    expect(llm.requests.length).toBe(before + 2);
  });

  it("reach the endpoint a few at a time, however many tools ask at once", async () => {
    let inFlight = 0;
    let most = 0;
    const slow = await startChatServer(async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 100));
      inFlight--;
      return { content: "ok" };
    });
    try {
      const tb = await connect(stdioTarget("everything", "--sampling"), { timeoutMs: 10_000, sampling: { baseUrl: slow.url, model: "m", maxConcurrent: 2 } });
      open.push(tb);
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => tb.call("summarize", { text: `t${i}` })));
      expect(results.map((r) => r.text)).toEqual(Array(6).fill("m (endTurn): ok"));
      expect(slow.requests).toHaveLength(6);
      expect(most).toBe(2);
    } finally {
      await slow.close();
    }
  });

  it("are not offered unless a model is named: the server then hides its sampling tools", async () => {
    const tb = await toolbox(stdioTarget("everything", "--sampling"));
    expect(tb.tools.map((t) => t.name)).toEqual(["echo"]);
  });

  it("reach the client over Streamable HTTP too, in the main and an isolated session", async () => {
    const server = await startEverything("http", 0, "--sampling");
    servers.push(server);
    const tb = await toolbox(server.url, {});
    expect((await tb.call("summarize", { text: "over http" })).text).toBe("m-test (endTurn): a short summary");
    const child = await tb.isolated();
    expect((await child.call("summarize", { text: "isolated" })).text).toBe("m-test (endTurn): a short summary");
    await child.close();
  });
});
