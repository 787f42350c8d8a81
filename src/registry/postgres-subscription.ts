/**
 * A replica's link to the PostgreSQL registry: one connection that LISTENs
 * on its group's channel, wakes the replica on each NOTIFY, and, when the
 * connection is lost (the database restarts, the network cuts it, a ping
 * goes unanswered), reconnects with growing delays and wakes the replica
 * again once it listens, so the changes it missed are caught up by change
 * number (docs/decisions.md, "The calendar registry").
 */
import { createHash } from "node:crypto";
import pg from "pg";
import type { LinkState, Subscription, SubscriptionListener } from "./calendar-registry.js";

/** Delays between reconnection attempts, and how often a quiet link is checked. */
export interface LinkTiming {
  /** First delay after a loss; each failed attempt doubles it up to `maxRetryMs`. */
  readonly retryMs: number;
  readonly maxRetryMs: number;
  /** A listening connection runs `SELECT 1` this often; no answer within the same time is a loss. */
  readonly pingMs: number;
}

/** Reconnect soon, back off to 5 s, and check a quiet link every 10 s. */
export const DEFAULT_LINK_TIMING: LinkTiming = { retryMs: 100, maxRetryMs: 5_000, pingMs: 10_000 };

/** PostgreSQL truncates identifiers past 63 bytes. */
const MAX_CHANNEL_BYTES = 63;

/**
 * The NOTIFY channel of `group`: readable ("calq_registry:g1") when it fits
 * an identifier, else the group's digest; "calq_registry" without groups.
 */
export function channelOf(group: string | undefined): string {
  if (group === undefined) return "calq_registry";
  const readable = `calq_registry:${group}`;
  if (Buffer.byteLength(readable) <= MAX_CHANNEL_BYTES) return readable;
  return `calq_registry:${createHash("sha256").update(group).digest("hex").slice(0, 32)}`;
}

/** Listens on `channel` until closed; `started` settles after the first attempt, connected or not. */
export class PostgresSubscription implements Subscription {
  state: LinkState = "disconnected";
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  readonly started: Promise<void>;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly listener: SubscriptionListener,
    private readonly timing: LinkTiming,
  ) {
    this.retryMs = timing.retryMs;
    this.started = this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.config);
    this.client = client;
    let lost = false;
    const onLost = (cause: unknown) => {
      if (lost) return;
      lost = true;
      this.lost(client, cause);
    };
    client.on("error", onLost);
    client.on("end", () => onLost(new Error("the registry connection ended")));
    client.on("notification", (message) => {
      if (message.channel === this.channel && !this.closed) this.listener.onWake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    } catch (error) {
      onLost(error);
      return;
    }
    if (this.closed || lost) return;
    this.state = "connected";
    this.retryMs = this.timing.retryMs;
    this.listener.onLinkState?.("connected");
    this.listener.onWake();
    this.schedulePing(client);
  }

  /** Checks the link every pingMs: a half-open connection shows up here, not only on the next write. */
  private schedulePing(client: pg.Client): void {
    this.pingTimer = setTimeout(() => {
      const timeout = setTimeout(
        () => client.emit("error", new Error("the registry connection did not answer a ping")),
        this.timing.pingMs,
      );
      client.query("SELECT 1").then(
        () => {
          clearTimeout(timeout);
          if (this.client === client && this.state === "connected") this.schedulePing(client);
        },
        (error: unknown) => {
          clearTimeout(timeout);
          client.emit("error", error);
        },
      );
    }, this.timing.pingMs);
    this.pingTimer.unref();
  }

  private lost(client: pg.Client, cause: unknown): void {
    clearTimeout(this.pingTimer);
    client.end().catch(() => undefined);
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    if (this.state === "connected") {
      this.state = "disconnected";
      this.listener.onLinkState?.("disconnected", cause);
    }
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, this.timing.maxRetryMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    this.state = "disconnected";
    await client?.end().catch(() => undefined);
  }
}
