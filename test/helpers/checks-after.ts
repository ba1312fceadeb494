/**
 * What a scenario's checks say after something else than its reference solution was done (nothing,
 * a part of it, too much) on a fresh instance of its server: a check that cannot fail is no check.
 */
import type { Toolbox } from "../../src/mcp/types.js";
import { checkExpected } from "../../src/scenarios/check.js";
import { replayScenario } from "../../src/scenarios/replay.js";
import type { Scenario } from "../../src/scenarios/schema.js";

/** Runs `act` on a fresh instance of `box`'s server, then the scenario's checks there. */
export async function passesAfter(box: Toolbox, s: Scenario, act: (fresh: Toolbox) => Promise<unknown>): Promise<boolean> {
  const fresh = await box.isolated();
  try {
    await act(fresh);
    return (await checkExpected(s.expected!, s.reference!.answer, fresh)).pass;
  } finally {
    await fresh.close();
  }
}

/** Whether the scenario's reference solution passes its checks on a fresh instance of `box`'s server. */
export async function replaysOnFresh(box: Toolbox, s: Scenario): Promise<boolean> {
  const fresh = await box.isolated();
  try {
    return (await replayScenario(fresh, s)).pass;
  } finally {
    await fresh.close();
  }
}
