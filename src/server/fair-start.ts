/**
 * Calls start a few per turn of the event loop, connections taking turns: a
 * connection that opens a thousand streams at once waits behind its own
 * calls, not in front of everyone else's. Without this, Node hands the
 * service every stream a read brought in at once, and each begins there and
 * then: 4,000 health Watch openings over 40 connections, each refused in
 * about 0.4 ms, held a search on another connection for over a second
 * (bench/hostile.ts). With it, a call waits at most for a turn's starts per
 * connection ahead of it, and I/O is read between turns.
 *
 * A call that finds fewer than STARTS_PER_TURN started in its turn starts at
 * once, so a lone call waits for nothing and a busy connection (a proxy's,
 * carrying many clients) still starts many calls a turn. A connection's calls
 * start in the order they arrived. What waits is bounded by the connection
 * caps and the streams each may open at once (ConnectionSettings).
 */

/**
 * Calls one turn may start. A call refused at once costs about 0.4 ms, so a
 * turn of starts holds others for some 6 ms at worst; one a turn would cut a
 * single connection's throughput by almost half.
 */
export const STARTS_PER_TURN = 16;

/** Past this many started calls at its head, a connection's queue drops them. */
const COMPACT_AFTER = 64;

/** One connection's calls waiting to start: those before `head` have started. */
interface Waiting<Task> {
  tasks: (Task | undefined)[];
  head: number;
}

export class FairStart<Task> {
  /** Connections with calls waiting, in the order they take their turns (a Map keeps insertion order). */
  private readonly waiting = new Map<object, Waiting<Task>>();
  /** Calls started in this turn of the loop. */
  private startedThisTurn = 0;
  private scheduled = false;

  /** `start` begins a call and must not throw (an async function's failure is its promise's). */
  constructor(
    private readonly start: (task: Task) => void,
    private readonly perTurn = STARTS_PER_TURN,
  ) {}

  /** Queues `task` behind `connection`'s others; it starts now if this turn has starts left, else on a later turn. */
  add(connection: object, task: Task): void {
    const queue = this.waiting.get(connection);
    if (queue === undefined) this.waiting.set(connection, { tasks: [task], head: 0 });
    else queue.tasks.push(task);
    if (this.startedThisTurn < this.perTurn) this.startNext();
    else this.schedule();
  }

  /** Calls waiting to start, for all connections. */
  get size(): number {
    let size = 0;
    for (const queue of this.waiting.values()) size += queue.tasks.length - queue.head;
    return size;
  }

  /** A later turn: its count of starts begins again, and it starts what waits. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startedThisTurn = 0;
      while (this.startedThisTurn < this.perTurn && this.waiting.size > 0) this.startNext();
    });
  }

  /** Starts the oldest call of the connection whose turn it is; that connection goes to the back of the line. */
  private startNext(): void {
    const next = this.waiting.entries().next();
    if (next.done === true) return;
    const [connection, queue] = next.value;
    this.waiting.delete(connection);
    const task = queue.tasks[queue.head] as Task;
    queue.tasks[queue.head++] = undefined;
    if (queue.head < queue.tasks.length) {
      if (queue.head > COMPACT_AFTER && 2 * queue.head > queue.tasks.length) {
        queue.tasks = queue.tasks.slice(queue.head);
        queue.head = 0;
      }
      this.waiting.set(connection, queue);
    }
    this.startedThisTurn++;
    this.schedule();
    this.start(task);
  }
}
