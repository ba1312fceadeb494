/**
 * The default server log (QA22 security): in a shared temp dir another user could read a log
 * that was 0644 in a 0755 folder, and plant a link at its predictable path that the servers'
 * stderr was then appended through.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SERVER_LOG, openServerLog } from "../../src/mcp/server-log.js";

const scratch = mkdtempSync(join(tmpdir(), "server-log-test-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(DEFAULT_SERVER_LOG, { force: true });
});

describe("the default server log", () => {
  it("is this user's: a 0700 folder named with the uid, a 0600 file, never written through a link", async () => {
    expect(DEFAULT_SERVER_LOG).toBe(join(tmpdir(), `train-mcp-${process.getuid!()}`, `server-${process.pid}.log`));
    const victim = join(scratch, "victim.txt");
    writeFileSync(victim, "");
    rmSync(DEFAULT_SERVER_LOG, { force: true });
    mkdirSync(dirname(DEFAULT_SERVER_LOG), { recursive: true });
    chmodSync(dirname(DEFAULT_SERVER_LOG), 0o755); // as an earlier version, or another user, left it
    symlinkSync(victim, DEFAULT_SERVER_LOG);
    expect(() => openServerLog(DEFAULT_SERVER_LOG)).toThrow(/cannot open the servers' log .* \(a link is in its place\): remove it, or give --server-log FILE/);
    expect(readFileSync(victim, "utf8")).toBe("");
    rmSync(DEFAULT_SERVER_LOG);
    const log = openServerLog(DEFAULT_SERVER_LOG);
    log.end("a server's stderr\n");
    expect(readFileSync(DEFAULT_SERVER_LOG, "utf8")).toBe("a server's stderr\n");
    expect(statSync(dirname(DEFAULT_SERVER_LOG)).mode & 0o777).toBe(0o700);
    expect(statSync(DEFAULT_SERVER_LOG).mode & 0o777).toBe(0o600);
  });

  it("a --server-log file is opened as given, its folders made; a folder, or one that cannot be made, is a usage error", () => {
    const file = join(scratch, "logs", "deeper", "servers.log");
    const log = openServerLog(file);
    // written at once: a CLI that exits right after still leaves it in the file
    log.write("x\n");
    expect(readFileSync(file, "utf8")).toBe("x\n");
    log.end("y\n");
    expect(readFileSync(file, "utf8")).toBe("x\ny\n");
    expect(() => openServerLog(scratch)).toThrow(`--server-log ${scratch}: cannot write it (it is a folder: name a file in it)`);
    // (Node 20's recursive mkdir never returns here)
    expect(() => openServerLog("/proc/no-such-folder/x.log")).toThrow(/^--server-log \/proc\/no-such-folder\/x\.log: cannot write it \(ENOENT/);
  });
});
