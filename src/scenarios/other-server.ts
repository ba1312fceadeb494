/**
 * Scenarios written for another server than the one they are about to run on: likely a
 * mistake (a file reused across servers), so both `train` and `scenarios check` name them.
 */
import { redactTargetCredentials, sameTarget } from "../mcp/target.js";
import type { Scenario } from "./schema.js";

/**
 * The warning for `scenarios` whose `server` is not `target` (null when none), ending "… and are
 * <done> <target>". A bundled fixture's scenarios (`fixture:calculator`) also match that fixture
 * served over HTTP: a server whose `serverName` (what it called itself) is the fixture's name.
 */
export function otherServerWarning(scenarios: readonly Scenario[], target: string, done: string, serverName?: string): string | null {
  const elsewhere = scenarios.filter((s) => s.server && !sameTarget(s.server, target) && !(serverName && s.server === `fixture:${serverName}`));
  if (elsewhere.length === 0) return null;
  const named = [...new Set(elsewhere.map((s) => redactTargetCredentials(s.server!)))];
  return (
    `warning: ${elsewhere.length} of ${scenarios.length} scenarios name another server (${named.slice(0, 3).join(", ")}${named.length > 3 ? ", …" : ""}) ` +
    `and are ${done} ${redactTargetCredentials(target)}`
  );
}
