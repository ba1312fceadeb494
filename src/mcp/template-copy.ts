/**
 * A --template-dir copy a server can write to without touching the template: fs.cp alone turns a
 * relative symlink into an absolute one to the original file, so a server writing through
 * `db.txt -> real/db.txt` wrote into the template. Links that point inside the template point
 * to the same place inside the copy; links that point outside it are kept as they are (a
 * project's links into a package store), and `linksOutside` names them for a warning.
 */
import { cp, readdir, readlink, realpath, rm, symlink } from "node:fs/promises";
import path from "node:path";

export async function copyTemplate(template: string, dest: string): Promise<void> {
  const root = await realpath(template);
  await cp(root, dest, { recursive: true, verbatimSymlinks: true });
  for (const link of await linksIn(dest)) {
    const pointsAt = await linkTarget(path.join(root, path.relative(dest, link)), await readlink(link));
    if (!isInside(pointsAt, root)) continue;
    const inCopy = path.join(dest, path.relative(root, pointsAt));
    await rm(link);
    await symlink(path.relative(path.dirname(link), inCopy) || ".", link);
  }
}

/** The symlinks under `template` whose target is outside it: a server can write the originals through them. */
export async function linksOutside(template: string): Promise<string[]> {
  const root = await realpath(template);
  const out: string[] = [];
  for (const link of await linksIn(root)) if (!isInside(await linkTarget(link, await readlink(link)), root)) out.push(path.relative(root, link));
  return out;
}

/** Where a link at `at` reading `target` leads, through any further links (as written when broken). */
async function linkTarget(at: string, target: string): Promise<string> {
  const written = path.resolve(path.dirname(at), target);
  return realpath(at).catch(() => written);
}

function isInside(p: string, root: string): boolean {
  return p === root || p.startsWith(root + path.sep);
}

/** Every symlink under `dir` (links to folders are not descended into). */
async function linksIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const here = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) found.push(here);
    else if (entry.isDirectory()) found.push(...(await linksIn(here)));
  }
  return found;
}
