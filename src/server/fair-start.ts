/**
 * Calls start one per turn of the event loop, connections taking turns: a
 * connection that opens a thousand streams at once waits behind its own
 * calls, not in front of everyone else's. A call that finds no other
 * started in its turn starts at once. Without this, Node hands the
 * service every stream a read brought in one go, and each begins at once:
 * 4,000 health Watch openings over 40 connections, each refused in about
 * 0.4 ms, held a search on another connection for over a second
 * (bench/hostile.ts). With it, that search waits for one start per
 * connection with calls waiting, and I/O is read between any two.
 *
 * A connection's calls start in the order they arrived. What waits is
 * bounded by the connection caps and the streams each may open at once
 * (ConnectionSettings).
 */

/** One connection's calls waiting to start, oldest first. */
interface Waiting<Task> {
  readonly tasks: Task[];
  head: number;
}

export class FairStart<Task> {
  /** Connections with calls waiting, in the order they take their turns (a Map keeps insertion order). */
  private readonly waiting = new Map<object, Waiting<Task>>();
  /** A call has started in this turn of the loop; the next waits for the next turn. */
  private turnTaken = false;
  private scheduled = false;

  /** `start` begins a call and must not throw (an async function's failure is its promise's). */
  constructor(private readonly start: (task: Task) => void) {}

  /**
   * Queues `task` behind `connection`'s others. It starts now when no call
   * has started in this turn of the loop (a lone call waits for nothing),
   * else on a later turn.
   */
  add(connection: object, task: Task): void {
    const queue = this.waiting.get(connection);
    if (queue === undefined) this.waiting.set(connection, { tasks: [task], head: 0 });
    else queue.tasks.push(task);
    if (this.turnTaken) this.schedule();
    else this.startNext();
  }

  /** Calls waiting to start, for all connections. */
  get size(): number {
    let size = 0;
    for (const queue of this.waiting.values()) size += queue.tasks.length - queue.head;
    return size;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.turnTaken = false;
      this.startNext();
    });
  }

  /** Starts the oldest call of the connection whose turn it is; that connection goes to the back of the line. */
  private startNext(): void {
    const next = this.waiting.entries().next();
    if (next.done === true) return;
    const [connection, queue] = next.value;
    this.waiting.delete(connection);
    const task = queue.tasks[queue.head++];
    if (queue.head < queue.tasks.length) this.waiting.set(connection, queue);
    this.turnTaken = true;
    this.schedule();
    this.start(task);
  }
}
