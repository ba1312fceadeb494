/**
 * `--sandbox`: a stdio server started under bubblewrap (`bwrap`), because the tools a model calls
 * in training are untrusted, and so is what a third-party server does with them (a shell
 * server runs whatever the model writes). Inside:
 * - the whole file system is read-only (`--ro-bind / /`), with a fresh /dev, /proc and an empty
 *   /tmp of its own (but for the folders under /tmp that the server's command line and working
 *   directory name: a server installed or cloned there still starts, read-only); the one
 *   writable folder is the server's working copy of `--template-dir`, so a rollout's writes
 *   land in a copy that is deleted after it, never in the user's files;
 * - new user, PID, IPC, UTS, cgroup and network namespaces (`--unshare-all`): no network but a
 *   loopback of its own (unless `--sandbox-network`), and no process outside can be signalled;
 * - `--die-with-parent` and `--new-session`: the server cannot outlive train-mcp, nor reach its
 *   terminal.
 * Files stay readable: a tool may still show the model what the user can read (a home folder's
 * dotfiles), but it cannot change, delete or send anything. bubblewrap is Debian's `bubblewrap`
 * (Flatpak's sandbox); it needs unprivileged user namespaces, or root.
 * Reference: bwrap(1), https://github.com/containers/bubblewrap
 */
import fs from "node:fs";
import path from "node:path";
import { TrainMcpError } from "../errors.js";

export interface SandboxOptions {
  /** keep the host's network (a server that needs a database or an API); default false */
  network?: boolean;
}

/** The bwrap executable on PATH, or a ConfigInvalid saying how to get it. */
export function findBwrap(pathVar = process.env.PATH ?? ""): string {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "bwrap");
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  throw new TrainMcpError("ConfigInvalid", "--sandbox runs stdio servers under bubblewrap, and no `bwrap` is on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)");
}

/**
 * The command line that runs `command args` in the sandbox. `workDir`: the writable working copy
 * (--template-dir's), undefined when the server has none (then nothing is writable but /tmp,
 * which is the sandbox's own); `cwd`: where the server starts.
 */
export function sandboxCommand(bwrap: string, command: string, args: readonly string[], o: SandboxOptions & { cwd: string; workDir?: string }): { command: string; args: string[] } {
  const kept = tmpFoldersNamed([command, ...args, ...(o.workDir ? [] : [o.cwd])]);
  const bwrapArgs = [
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    // the only temp folder it can write: a TMPDIR elsewhere is read-only (or missing) inside
    "--setenv", "TMPDIR", "/tmp",
    ...kept.flatMap((dir) => ["--ro-bind", dir, dir]),
    // after /tmp's tmpfs: the working copy usually lives under /tmp itself
    ...(o.workDir ? ["--bind", o.workDir, o.workDir] : []),
    "--unshare-all",
    ...(o.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--chdir", o.cwd,
    "--",
    command,
    ...args,
  ];
  return { command: bwrap, args: bwrapArgs };
}

/**
 * The folders right under /tmp that these words name as absolute paths (`/tmp/clone/x.js`,
 * `--root=/tmp/data/a`): the sandbox's empty /tmp would hide them, and with them the server's
 * own script and node_modules. Only folders that exist; /tmp itself never.
 */
export function tmpFoldersNamed(words: readonly string[]): string[] {
  const found = new Set<string>();
  for (const word of words) {
    const value = word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
    const m = /^\/tmp\/([^/]+)/.exec(path.normalize(value));
    if (!m) continue;
    const dir = `/tmp/${m[1]}`;
    try {
      if (fs.statSync(dir).isDirectory()) found.add(dir);
    } catch {
      /* not there */
    }
  }
  return [...found];
}

/** What a sandboxed server's start-up failure usually means, added to its one-line error. */
export function sandboxHint(stderr: string): string {
  if (/bwrap: .*(namespace|Operation not permitted|setting up uid map)/i.test(stderr))
    return "; bubblewrap could not create its namespaces: unprivileged user namespaces are off on this machine (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or run as root";
  if (/EROFS|read-only file system/i.test(stderr) && /[/\\]\.npm\b/.test(stderr)) return "; npx keeps its cache in ~/.npm, which the sandbox leaves read-only: install the package (npm i) and start the server by its path";
  if (/EROFS|read-only file system/i.test(stderr)) return "; the sandbox's file system is read-only but for --template-dir's copy: give the server its data folder with --template-dir";
  if (/EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ENETUNREACH|getaddrinfo/i.test(stderr)) return "; the sandbox has no network: --sandbox-network keeps it";
  return "";
}
