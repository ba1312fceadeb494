/**
 * A throwaway PostgreSQL cluster for tests: Debian's server binaries (`postgresql`, installed by
 * scripts/ensure-test-packages.sh), a data folder in the temp dir, trust authentication, listening on
 * 127.0.0.1 at a free port only. Postgres refuses to run as root, so as root the cluster belongs
 * to the `postgres` user the Debian package creates.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";

export interface PostgresCluster {
  /** postgresql://postgres@127.0.0.1:PORT */
  url: (database?: string) => string;
  stop(): void;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error("PostgreSQL's server binaries are missing: apt-get install -y postgresql (scripts/ensure-test-packages.sh does it as root)");
  return join(root, versions[0], "bin");
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "pg-test-"));
  const data = join(dir, "data");
  const asRoot = userInfo().uid === 0;
  // as root: run the server as the package's `postgres` user, who must own the folder
  const run = (cmd: string, args: string[]) => {
    const r = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args], { encoding: "utf8" }) : spawnSync(join(bin, cmd), args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout || r.error?.message}`);
  };
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  run("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "30", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, "start"]);
  return {
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    stop: () => {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
