/**
 * The tasks the calls in flight on one connection work on (`CallOptions.task`), so that a form a
 * server asks the user to fill in mid-call (elicitation.ts, `model` mode) is answered knowing
 * what the user wanted. A server's request carries nothing that ties it to the call it came
 * from (the SDK client sees no related request id, on any transport), so the answer is the task
 * only when every call in flight on the connection shares it: always for a rollout's own
 * isolated server, and for the members of one GRPO group on a shared one; never a guess between
 * two tasks.
 */
export class CallTasks {
  private readonly inFlight = new Map<symbol, string | undefined>();

  /** Records a call as in flight with its task (or none); the returned function ends it. */
  begin(task: string | undefined): () => void {
    const id = Symbol("call");
    this.inFlight.set(id, task);
    return () => this.inFlight.delete(id);
  }

  /** The task every call in flight works on; undefined when none is, one has none, or two differ. */
  current(): string | undefined {
    const tasks = new Set(this.inFlight.values());
    if (tasks.size !== 1) return undefined;
    const [task] = tasks;
    return task;
  }
}
