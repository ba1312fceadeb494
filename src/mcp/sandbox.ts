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
 * - the home folder is a throwaway one: a fresh tmpfs in which what the real home holds is bound
 *   back read-only (node under ~/.nvm, packages under ~/.local still run), but for the well-known
 *   credential stores (~/.ssh, ~/.aws, ~/.netrc, ~/.config/gh, shell histories…, HOME_SECRETS),
 *   which are not there at all, nor where their symlinks lead. A server may create files and
 *   folders in it (desktop-commander will not start without its ~/.claude-server-commander), and
 *   they vanish with it. The user's own home's secrets are covered too where the server is given
 *   another HOME; a home of over MAX_HOME_ENTRIES entries stays read-only, its secrets covered;
 * - no capabilities (`--cap-drop ALL`): run by root, the sandbox's root could otherwise unmount
 *   those covers or remount / writable;
 * - the host's service sockets (Docker's, containerd's, D-Bus's, the user's /run/user session
 *   folder with its agents) are hidden: a read-only mount does not stop connect() on a socket,
 *   and Docker's socket alone is root on the host.
 * Other files stay readable: a tool may still show the model what the user can read outside
 * those, but it cannot change, delete or send anything. bubblewrap is Debian's `bubblewrap`
 * (Flatpak's sandbox); it needs unprivileged user namespaces, or root.
 * Reference: bwrap(1), https://github.com/containers/bubblewrap
 */
import fs from "node:fs";
import { userInfo } from "node:os";
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
export function sandboxCommand(
  bwrap: string,
  command: string,
  args: readonly string[],
  o: SandboxOptions & {
    cwd: string;
    workDir?: string;
    /** the server's HOME */
    home?: string;
    /** the server's environment (a DOCKER_HOST it is given) */
    env?: Readonly<Record<string, string>>;
    /** the user's own home folders (default: the account's and $HOME), whose secrets are covered even where the server's HOME is another */
    userHomes?: readonly string[];
    /** sockets to hide (default: hostSockets()) */
    hiddenSockets?: readonly string[];
  },
): { command: string; args: string[] } {
  const kept = tmpFoldersNamed([command, ...args, ...(o.workDir ? [] : [o.cwd])]);
  // a home inside the working copy (--env 'HOME=${cwd}') is writable with it
  const serverHome = o.home && !(o.workDir && isWithin(o.home, o.workDir)) ? o.home : undefined;
  const otherHomes = (o.userHomes ?? userHomes()).filter((h) => !serverHome || realOrSelf(h) !== realOrSelf(serverHome));
  const bwrapArgs = [
    // root in the sandbox's user namespace could otherwise unmount the covers below, or remount / writable
    "--cap-drop", "ALL",
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    // the only temp folder it can write: a TMPDIR elsewhere is read-only (or missing) inside
    "--setenv", "TMPDIR", "/tmp",
    ...kept.flatMap((dir) => ["--ro-bind", dir, dir]),
    // after the folders kept under /tmp: a home there is one of them
    ...homeMounts(serverHome),
    ...otherHomes.flatMap((h) => secretCovers(h)),
    ...(o.hiddenSockets ?? hostSockets({ ...process.env, ...o.env })).flatMap(coverArgs),
    // last: the working copy usually lives under /tmp itself, or may live under the home
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

/** whether `p` is `dir` or inside it */
function isWithin(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** the path with its symlinks resolved, or as given where it is not there */
function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Credential stores under a home folder, as paths relative to it: keys, tokens, cloud and
 * registry logins, container engines' sockets and logins, browser and mail profiles, keyrings,
 * the X display's cookie, and shell histories (commands typed with a password in them). Inside
 * the sandbox they are not there at all.
 */
export const HOME_SECRETS = [
  ".ssh", ".gnupg", ".password-store", ".pki", ".netrc", ".git-credentials", ".pgpass", ".my.cnf", ".mylogin.cnf",
  ".aws", ".azure", ".kube", ".docker", ".boto", ".s3cfg", ".vault-token", ".terraform.d", ".oci",
  ".colima", ".lima", ".rd", ".config/containers/auth.json",
  ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".m2/settings.xml",
  ".config/gh", ".config/hub", ".config/gcloud", ".config/rclone", ".config/op", ".config/git/credentials", ".config/github-copilot",
  ".config/configstore", ".config/sops",
  ".huggingface", ".cache/huggingface/token", ".claude/.credentials.json", ".codex/auth.json",
  ".local/share/keyrings", ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
  ".Xauthority", ".ICEauthority",
  ".bash_history", ".zsh_history", ".local/share/fish/fish_history", ".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history", ".lesshst", ".viminfo", ".ipython",
  ".env",
];

/** a home with more entries than this stays read-only as it is: bwrap takes a mount per entry, slows, then refuses */
export const MAX_HOME_ENTRIES = 200;

/** The user's own home folders: the account's and $HOME's, resolved, once each. */
function userHomes(): string[] {
  let account: string | undefined;
  try {
    account = userInfo().homedir;
  } catch {
    /* no passwd entry */
  }
  const homes = [account, process.env.HOME].filter((h): h is string => !!h && path.isAbsolute(h)).map(realOrSelf);
  return [...new Set(homes)].filter((h) => h !== "/");
}

/**
 * bwrap arguments that make `home` a throwaway folder: a tmpfs over it, each of its entries
 * bound back read-only (symlinks as symlinks) but for HOME_SECRETS, which are then covered
 * where they really are (through symlinks, ~/.ssh → dotfiles/ssh, and deeper, ~/.config/gh).
 * A home of more than `maxEntries` entries stays read-only, its secrets covered. None for a home
 * that is not a folder, or is / or /tmp.
 */
export function homeMounts(home: string | undefined, maxEntries = MAX_HOME_ENTRIES): string[] {
  if (!home || !path.isAbsolute(home)) return [];
  let root: string;
  let entries: string[];
  try {
    // bwrap resolves absolute links on its own new root: the destinations must be real paths
    root = fs.realpathSync(home);
    if (root === "/" || root === "/tmp" || !fs.statSync(root).isDirectory()) return [];
    entries = fs.readdirSync(root);
  } catch {
    return [];
  }
  if (entries.length > maxEntries) return secretCovers(root);
  const secretTop = new Set(HOME_SECRETS.filter((p) => !p.includes("/")));
  const out = ["--tmpfs", root];
  for (const name of entries.sort()) {
    if (secretTop.has(name)) continue;
    const full = path.join(root, name);
    try {
      if (fs.lstatSync(full).isSymbolicLink()) out.push("--symlink", fs.readlinkSync(full), full);
      else out.push("--ro-bind-try", full, full);
    } catch {
      /* gone meanwhile */
    }
  }
  return [...out, ...secretCovers(root, true)];
}

/**
 * bwrap arguments that cover a home's credential stores where they really are. `leftOut`: its
 * top-level entries are not in the sandbox's home at all (homeMounts), so only those that are
 * symlinks need their targets covered. Never a folder that holds the home itself.
 */
export function secretCovers(home: string, leftOut = false): string[] {
  const root = realOrSelf(home);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const secret of HOME_SECRETS) {
    const at = path.join(root, secret);
    let real: string;
    try {
      real = fs.realpathSync(at);
    } catch {
      continue;
    }
    if ((leftOut && !secret.includes("/") && real === at) || real === "/" || isWithin(root, real) || seen.has(real)) continue;
    seen.add(real);
    out.push(...coverArgs(real));
  }
  return out;
}

/** Sockets (and folders of them) of the host's services that are as good as root, or a desktop session, where they exist. */
export function hostSockets(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const candidates = [
    "/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock",
    "/run/crio/crio.sock", "/run/k3s/containerd/containerd.sock", "/run/buildkit/buildkitd.sock",
    "/run/libvirt/libvirt-sock", "/var/snap/lxd/common/lxd/unix.socket", "/var/lib/lxd/unix.socket", "/var/lib/incus/unix.socket",
    "/run/snapd.socket", "/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/run/user",
    ...[env.XDG_RUNTIME_DIR, env.XAUTHORITY].filter((p): p is string => !!p && path.isAbsolute(p)),
    ...(env.DOCKER_HOST?.startsWith("unix://") ? [env.DOCKER_HOST.slice("unix://".length)] : []),
  ];
  const found = new Set<string>();
  for (const p of candidates) {
    try {
      const real = fs.realpathSync(p);
      // /tmp is the sandbox's own already
      if (real !== "/" && real !== "/tmp" && !real.startsWith("/tmp/")) found.add(real);
    } catch {
      /* not on this machine */
    }
  }
  return [...found];
}

/** An empty tmpfs over a folder, /dev/null over anything else; nothing for a path that is not there. */
function coverArgs(p: string): string[] {
  try {
    return fs.lstatSync(p).isDirectory() ? ["--tmpfs", p] : ["--ro-bind", "/dev/null", p];
  } catch {
    return [];
  }
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

/** What a sandboxed server's start-up failure usually means, added to its one-line error; `home`: the server's home folder. */
export function sandboxHint(stderr: string, home?: string): string {
  if (/bwrap: .*(namespace|Operation not permitted|setting up uid map)/i.test(stderr))
    return "; bubblewrap could not create its namespaces: unprivileged user namespaces are off on this machine (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or run as root";
  if (/EROFS|read-only file system/i.test(stderr) && /[/\\]\.npm\b/.test(stderr)) return "; npx keeps its cache in ~/.npm, which the sandbox leaves read-only: install the package (npm i) and start the server by its path";
  if (/EROFS|read-only file system/i.test(stderr) && home && home !== "/" && stderr.includes(`${home.replace(/\/+$/, "")}/`))
    return "; in the sandbox the home folder takes new files, but what it already holds is read-only: give the server a home of its own in its working copy, --env 'HOME=${cwd}'";
  if (/EROFS|read-only file system/i.test(stderr)) return "; the sandbox's file system is read-only but for --template-dir's copy: give the server its data folder with --template-dir";
  if (/EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ENETUNREACH|getaddrinfo/i.test(stderr)) return "; the sandbox has no network: --sandbox-network keeps it";
  return "";
}
