/**
 * Prometheus metrics (prom-client), in a registry of this server's own so
 * two servers in one process never share counters:
 *
 *   calq_rpc_total{method,code}                   calls by method and status code
 *   calq_rpc_duration_seconds{method,code}        their latency
 *   calq_cursor_rejections_total{reason}          INVALID_CURSOR and CURSOR_EXPIRED refusals
 *   calq_calendar_reloads_total{calendar_id,outcome}
 *                                                 reads of a feed: "loaded" (a new snapshot),
 *                                                 "unchanged" (304, same bytes), or the failure class
 *   calq_calendar_snapshot_age_seconds{calendar_id}
 *                                                 age of the data being served
 *   calq_calendar_occurrences{calendar_id}        occurrences indexed in the current snapshot
 *   calq_calendar_events{calendar_id}             events in the current snapshot
 *   calq_calendar_stale{calendar_id}              1 when the last reload failed
 *   calq_calendar_diagnostics{calendar_id,severity}
 *                                                 diagnostics of the current snapshot: "error"
 *                                                 (something left out) or "warning" (read by a rule)
 *   calq_registry_local_copy                      1 while the registry's calendars come from the
 *                                                 replica's local copy (the database was away at start)
 *   calq_registry_connected                       1 while the registry's changes arrive
 *   calq_registry_change_number                   the last registry change applied
 *
 * plus prom-client's process metrics. Labels are method names, status codes,
 * reasons and configured calendar ids: never anything a caller chose.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { countBySeverity, type Severity } from "../ics/diagnostic.js";
import type { CalendarView } from "../store/calendar-store.js";
import type { CallListener } from "./call-observer.js";

const CURSOR_REASONS = new Set(["INVALID_CURSOR", "CURSOR_EXPIRED"]);

/** The metrics of one server; `registry` is what /metrics serves. */
export class Metrics {
  readonly registry = new Registry();
  private readonly calls: Counter<"method" | "code">;
  private readonly latency: Histogram<"method" | "code">;
  private readonly cursorRejections: Counter<"reason">;
  private readonly reloads: Counter<"calendar_id" | "outcome">;

  /** `views` gives the calendars as they are at scrape time. */
  constructor(views: () => readonly CalendarView[], now: () => number = Date.now) {
    const registers = [this.registry];
    this.calls = new Counter({
      name: "calq_rpc_total",
      help: "RPCs handled, by method and gRPC status code.",
      labelNames: ["method", "code"],
      registers,
    });
    this.latency = new Histogram({
      name: "calq_rpc_duration_seconds",
      help: "RPC handling time, by method and gRPC status code.",
      labelNames: ["method", "code"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.cursorRejections = new Counter({
      name: "calq_cursor_rejections_total",
      help: "Cursors refused, by reason.",
      labelNames: ["reason"],
      registers,
    });
    this.reloads = new Counter({
      name: "calq_calendar_reloads_total",
      help: "Reads of calendar feeds, by outcome: loaded (a new snapshot), unchanged (304 or the same bytes), or the failure class.",
      labelNames: ["calendar_id", "outcome"],
      registers,
    });
    const perCalendar = (name: string, help: string, value: (view: CalendarView) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ["calendar_id"],
        registers,
        collect() {
          this.reset();
          for (const view of views()) {
            const measured = value(view);
            if (measured !== undefined) this.set({ calendar_id: view.config.id }, measured);
          }
        },
      });
    perCalendar("calq_calendar_snapshot_age_seconds", "Seconds since the served snapshot's feed was read.", (view) =>
      view.snapshot === undefined ? undefined : (now() - view.snapshot.dataAsOf) / 1000,
    );
    perCalendar("calq_calendar_occurrences", "Occurrences indexed in the served snapshot.", (view) => view.snapshot?.index.size);
    perCalendar("calq_calendar_events", "Events in the served snapshot.", (view) => view.snapshot?.eventCount);
    perCalendar("calq_calendar_stale", "1 when the last reload failed and the last good snapshot is served.", (view) =>
      view.stale ? 1 : 0,
    );
    new Gauge({
      name: "calq_calendar_diagnostics",
      help: "Diagnostics of the served snapshot, by severity: error (something left out) or warning (kept, read by a stated rule).",
      labelNames: ["calendar_id", "severity"],
      registers,
      collect() {
        this.reset();
        for (const view of views()) {
          if (view.snapshot === undefined) continue;
          const counts = countBySeverity(view.snapshot.diagnostics);
          for (const severity of Object.keys(counts) as Severity[]) {
            this.set({ calendar_id: view.config.id, severity }, counts[severity]);
          }
        }
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Reports how this replica follows the calendar registry, read at scrape time (a server with a registry calls it once). */
  followRegistry(status: () => { readonly source: "registry" | "local-copy"; readonly link: string; readonly changeNumber: number }): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, value: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(value());
        },
      });
    gauge("calq_registry_local_copy", "1 while the registry's calendars are served from this replica's local copy.", () =>
      status().source === "local-copy" ? 1 : 0,
    );
    gauge("calq_registry_connected", "1 while the registry's changes reach this replica.", () => (status().link === "connected" ? 1 : 0));
    gauge("calq_registry_change_number", "The last registry change this replica applied.", () => status().changeNumber);
  }

  /** Counts each finished call. */
  readonly onCall: CallListener = (outcome) => {
    const labels = { method: `${outcome.service}/${outcome.method}`, code: outcome.code };
    this.calls.inc(labels);
    this.latency.observe(labels, outcome.durationMs / 1000);
    if (outcome.reason !== undefined && CURSOR_REASONS.has(outcome.reason)) this.cursorRejections.inc({ reason: outcome.reason });
  };

  /** `outcome` is "loaded", "unchanged" or the store's failure class, whatever classes the store has. */
  reloaded(calendarId: string, outcome: string): void {
    this.reloads.inc({ calendar_id: calendarId, outcome });
  }
}
