/**
 * A throwaway MariaDB server for tests: Debian's `mariadb-server` (installed by
 * scripts/ensure-test-packages.sh), a data folder in the temp dir, listening on 127.0.0.1 at a
 * free port only, root without a password over the socket, and a user with a password over TCP
 * for the servers under test. As root, mariadbd runs as root (`--user=root`), as it allows.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";

export interface MariaDbServer {
  port: number;
  /** the user the servers under test log in as over TCP (all rights on every database) */
  user: string;
  password: string;
  /** runs SQL as root over the socket; the rows tab-separated, without a header */
  sql(statements: string, database?: string): string;
  stop(): Promise<void>;
}

function findBinary(names: string[]): string {
  for (const dir of ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]) for (const n of names) if (existsSync(join(dir, n))) return join(dir, n);
  throw new Error(`MariaDB is missing (${names[0]}): apt-get install -y mariadb-server (scripts/ensure-test-packages.sh does it as root)`);
}

export async function startMariaDb(): Promise<MariaDbServer> {
  const server = findBinary(["mariadbd", "mysqld"]);
  const install = findBinary(["mariadb-install-db", "mysql_install_db"]);
  const client = findBinary(["mariadb", "mysql"]);
  const dir = mkdtempSync(join(tmpdir(), "mariadb-test-"));
  const data = join(dir, "data");
  const socket = join(dir, "mysqld.sock");
  const user = userInfo().username;
  const init = spawnSync(install, ["--no-defaults", `--datadir=${data}`, `--user=${user}`, "--auth-root-authentication-method=socket", "--skip-test-db", "--skip-name-resolve"], { encoding: "utf8" });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed (${init.status}): ${init.stderr || init.stdout || init.error?.message}`);
  }
  const port = await freePort();
  const log = join(dir, "server.log");
  const child: ChildProcess = spawn(
    server,
    ["--no-defaults", `--datadir=${data}`, `--socket=${socket}`, `--port=${port}`, "--bind-address=127.0.0.1", `--user=${user}`, `--log-error=${log}`, `--pid-file=${join(dir, "mysqld.pid")}`,
      "--skip-log-bin", "--skip-name-resolve", "--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M", "--innodb-flush-log-at-trx-commit=0", "--performance-schema=OFF"],
    { stdio: "ignore" },
  );
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const run = (statements: string, database?: string) => {
    const r = spawnSync(client, ["--no-defaults", "-uroot", `--socket=${socket}`, "-N", "-B", ...(database ? [database] : []), "-e", statements], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`mariadb: ${r.stderr || r.error?.message}`);
    return r.stdout;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // ready when the socket answers
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      run("SELECT 1");
      break;
    } catch (e) {
      if (child.exitCode !== null || Date.now() > deadline) {
        const why = existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : String(e);
        await stop();
        throw new Error(`mariadbd did not start: ${why}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const password = "test-pass";
  run(`CREATE USER 'tester'@'127.0.0.1' IDENTIFIED BY '${password}'; GRANT ALL ON *.* TO 'tester'@'127.0.0.1';`);
  return { port, user: "tester", password, sql: run, stop };
}
