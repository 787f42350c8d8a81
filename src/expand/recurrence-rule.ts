/**
 * One RRULE (or EXRULE) as an iterator of local wall times, built on the
 * `rrule` package in floating mode: DTSTART's wall clock goes in as if it were
 * UTC, wall clocks come out, and the caller turns them into instants in the
 * series' zone. That keeps wall-clock times across DST, as RFC 5545 asks.
 *
 * Guards make rules safe to run on hostile feeds. rrule only hears from its
 * caller when it produces a date (its UNTIL, too, is checked only against
 * produced dates), so a rule whose periods produce nothing runs inside rrule,
 * unstoppable, until the year 9999. The guards therefore make sure, before
 * any call, that every period rrule visits costs a bounded amount and that
 * dates keep coming:
 * - a cost check refuses rules whose BYxxx lists multiply to more dates per
 *   period than any calendar needs, before rrule builds them in memory;
 * - BYSETPOS positions past the most dates a period can hold are refused
 *   without asking rrule (FREQ=MINUTELY;BYSETPOS=53 would otherwise be tried
 *   minute by minute for forty years: 72 s of CPU);
 * - a rule that never produces a date is refused after one probe near the
 *   end of rrule's range, where its search ends by itself; the probe's cost
 *   is bounded by the checks above, never timed, so whether a rule is kept
 *   depends on its text alone, not on how busy the machine is
 *   (docs/decisions.md, "Budgets count work");
 * - a rule without COUNT can start iterating near the window instead of at
 *   DTSTART ("fast-forward"), so a daily series from 1900 answers a window in
 *   2199 without walking three centuries. The jump lands on the start of a
 *   period the rule counts from DTSTART (a whole multiple of INTERVAL
 *   periods), with every default rrule would take from DTSTART written out
 *   explicitly, so the dates generated from there are exactly the original
 *   rule's.
 */

import type { Options } from "rrule";
import rrule from "rrule";
import type { RecurValue } from "../ics/parse-calendar.js";
import { civil } from "../time/civil.js";
import { DAY_MS, floorTo, HOUR_MS, MINUTE_MS } from "../time/units.js";
import { instantToLocal, type ZoneRules } from "../time/zone-rules.js";

const { RRule } = rrule;

/** Where a rule is tried before use: rrule stops by itself at the end of 9999. */
const PROBE_FROM = Date.UTC(9960, 0, 1);

/** Nothing after this wall time can be asked for (requests end before 2200). */
const LAST_LOCAL = Date.UTC(2200, 0, 3);

/** A COUNT above this is cut there (reported as a capped series). */
export const MAX_COUNTED = 100_000;

/** Dates one period of a rule may produce before the rule is refused. */
const MAX_DATES_PER_PERIOD = 10_000;

/** The most days one period of each frequency spans (BYSETPOS picks among them). */
const DAYS_PER_PERIOD: Record<number, number> = {
  [RRule.YEARLY]: 366,
  [RRule.MONTHLY]: 31,
  [RRule.WEEKLY]: 7,
  [RRule.DAILY]: 1,
  [RRule.HOURLY]: 1,
  [RRule.MINUTELY]: 1,
  [RRule.SECONDLY]: 1,
};

/** Why a rule cannot be expanded. */
export class RuleRefused extends Error {
  constructor(
    readonly code: "UNREADABLE_RRULE" | "RRULE_TOO_EXPENSIVE" | "RRULE_NEVER_MATCHES",
    message: string,
  ) {
    super(message);
  }
}

const FREQUENCIES: Record<string, number> = {
  YEARLY: RRule.YEARLY,
  MONTHLY: RRule.MONTHLY,
  WEEKLY: RRule.WEEKLY,
  DAILY: RRule.DAILY,
  HOURLY: RRule.HOURLY,
  MINUTELY: RRule.MINUTELY,
  SECONDLY: RRule.SECONDLY,
};

const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

/**
 * An accepted rule as plain data (JSON), to rebuild it on another thread
 * without running its checks and probe again. Weekdays are {weekday, n}.
 */
export interface RuleRecipe {
  readonly options: Partial<Options>;
  readonly startLocal: number;
  readonly lastLocal?: number;
  readonly countCut: boolean;
}

/** A readable, affordable recurrence rule anchored at a DTSTART. */
export class RecurrenceRule {
  /**
   * The last local wall time the rule may produce: its UNTIL, or its
   * COUNT-th date; undefined for a rule without end.
   */
  readonly lastLocal: number | undefined;
  /** True when COUNT is above MAX_COUNTED and the rule was cut at that many dates. */
  readonly countCut: boolean;
  private readonly options: Partial<Options>;
  /** The rule's plain shape, found on first use; false when it has none. */
  private plain?: PlainShape | false;

  /**
   * @param value the jCal recur value
   * @param startLocal DTSTART as a local wall time
   * @param zone the zone wall times are read in (to place a UTC UNTIL)
   * @param allDay whether DTSTART is a DATE (a DATE UNTIL then ends its day)
   */
  constructor(
    value: RecurValue,
    private readonly startLocal: number,
    zone: ZoneRules,
    allDay: boolean,
  ) {
    const freq = FREQUENCIES[String(value.freq ?? "").toUpperCase()];
    if (freq === undefined) throw new RuleRefused("UNREADABLE_RRULE", "RRULE has no valid FREQ");
    const interval = value.interval === undefined ? 1 : Number(value.interval);
    if (!Number.isInteger(interval) || interval < 1) {
      throw new RuleRefused("UNREADABLE_RRULE", "RRULE INTERVAL must be a positive integer");
    }
    const count = value.count === undefined ? undefined : Number(value.count);
    if (count !== undefined && (!Number.isInteger(count) || count < 1)) {
      throw new RuleRefused("UNREADABLE_RRULE", "RRULE COUNT must be a positive integer");
    }
    const untilLocal = value.until === undefined ? undefined : untilAsLocal(String(value.until), zone, allDay);

    const start = new Date(startLocal);
    const options: Partial<Options> = {
      freq,
      interval,
      count: null,
      until: null,
      wkst: value.wkst === undefined ? 0 : icalWeekdayToRrule(value.wkst),
      bysetpos: numbers(value.bysetpos),
      bymonth: numbers(value.bymonth),
      bymonthday: numbers(value.bymonthday),
      byyearday: numbers(value.byyearday),
      byweekno: numbers(value.byweekno),
      byweekday: weekdays(value.byday),
      // rrule gives a day's times in the order the lists are written: sorted, they come out ascending.
      byhour: ascending(numbers(value.byhour)),
      byminute: ascending(numbers(value.byminute)),
      bysecond: ascending(numbers(value.bysecond)),
    };
    // Write out every default rrule would take from DTSTART, so that starting
    // the iteration elsewhere (fast-forward) generates the same dates.
    const hasDayRule = options.byweekno !== null || options.byyearday !== null || options.bymonthday !== null || options.byweekday !== null;
    if (!hasDayRule) {
      if (freq === RRule.YEARLY) {
        options.bymonth ??= [start.getUTCMonth() + 1];
        options.bymonthday = [start.getUTCDate()];
      } else if (freq === RRule.MONTHLY) {
        options.bymonthday = [start.getUTCDate()];
      } else if (freq === RRule.WEEKLY) {
        options.byweekday = [(start.getUTCDay() + 6) % 7];
      }
    }
    if (options.byhour === null && freq < RRule.HOURLY) options.byhour = [start.getUTCHours()];
    if (options.byminute === null && freq < RRule.MINUTELY) options.byminute = [start.getUTCMinutes()];
    if (options.bysecond === null && freq < RRule.SECONDLY) options.bysecond = [start.getUTCSeconds()];
    this.options = options;
    checkCost(options);
    checkSetPositions(options);
    checkTimeOfDayReachable(options, startLocal);
    this.checkMatchesSomeDate();
    // COUNT is turned into the date it ends on, so that every range can be
    // iterated from near its start (fast-forward) like any other rule. The
    // count is the rule's own work: no other series' work can cut it.
    const counted = count === undefined ? undefined : this.countedEnd(Math.min(count, MAX_COUNTED));
    this.countCut = count !== undefined && count > MAX_COUNTED;
    this.lastLocal = counted === undefined ? untilLocal : Math.min(counted, untilLocal ?? Infinity);
  }

  /**
   * The step between the rule's wall times when they are simply DTSTART plus
   * whole steps: FREQ=HOURLY, MINUTELY or SECONDLY with no BY part but those
   * DTSTART implies (its minute, its second). Undefined for any other rule.
   */
  get fixedStepMs(): number | undefined {
    const { freq, interval = 1, bysetpos, bymonth, bymonthday, byyearday, byweekno, byweekday, byhour, byminute, bysecond } = this.options;
    if ([bysetpos, bymonth, bymonthday, byyearday, byweekno, byweekday, byhour].some((part) => part != null)) return undefined;
    const start = new Date(this.startLocal);
    const only = (list: unknown, value: number) => Array.isArray(list) && list.length === 1 && list[0] === value;
    const minuteOfStart = only(byminute, start.getUTCMinutes());
    const secondOfStart = only(bysecond, start.getUTCSeconds());
    if (freq === RRule.HOURLY && minuteOfStart && secondOfStart) return interval * HOUR_MS;
    if (freq === RRule.MINUTELY && byminute == null && secondOfStart) return interval * MINUTE_MS;
    if (freq === RRule.SECONDLY && byminute == null && bysecond == null) return interval * 1000;
    return undefined;
  }

  /** This rule as plain data; `fromRecipe` rebuilds it. */
  recipe(): RuleRecipe {
    return { options: this.options, startLocal: this.startLocal, lastLocal: this.lastLocal, countCut: this.countCut };
  }

  /** A rule already accepted elsewhere (by the constructor, on another thread): no checks, no probe. */
  static fromRecipe(recipe: RuleRecipe): RecurrenceRule {
    const { byweekday } = recipe.options;
    const weekdays = Array.isArray(byweekday)
      ? byweekday.map((day) => (typeof day === "object" ? new rrule.Weekday(day.weekday, day.n ?? undefined) : day))
      : byweekday;
    const rule = Object.create(RecurrenceRule.prototype) as RecurrenceRule;
    return Object.assign(rule, {
      options: { ...recipe.options, byweekday: weekdays },
      startLocal: recipe.startLocal,
      lastLocal: recipe.lastLocal,
      countCut: recipe.countCut,
    });
  }

  /**
   * The wall time of the last occurrence COUNT allows. DTSTART is the first
   * occurrence and counts (RFC 5545 §3.3.10); when it is not itself a date of
   * the rule, the rule adds COUNT-1 dates. Dates past 2200 are never asked
   * for, so the walk stops there.
   */
  private countedEnd(count: number): number {
    const rule = new RRule({ ...this.options, count, dtstart: new Date(this.startLocal), until: new Date(LAST_LOCAL) }, true);
    let first: number | undefined;
    let previous = this.startLocal;
    let last = this.startLocal;
    let seen = 0;
    rule.all((date) => {
      previous = last;
      last = date.getTime();
      first ??= last;
      seen++;
      return true;
    });
    return first !== undefined && first !== this.startLocal && seen === count ? previous : last;
  }

  /**
   * Refuses a rule that never produces a date (BYMONTH=2;BYMONTHDAY=30, a
   * BYSETPOS past the end of every period, an INTERVAL that never meets its
   * BYDAY). rrule would search such a rule up to the year 9999 before giving
   * up, so the rule is tried once, moved to the last decades rrule can
   * represent, where that search ends by itself within a few dozen years.
   * A rule that produces nothing in that span is of no use to a calendar.
   */
  private checkMatchesSomeDate(): void {
    const anchor = this.fastForward(PROBE_FROM);
    const rule = new RRule({ ...this.options, count: null, until: null, dtstart: new Date(anchor) }, true);
    let matched = false;
    rule.all(() => {
      matched = true;
      return false;
    });
    if (!matched) {
      throw new RuleRefused("RRULE_NEVER_MATCHES", "RRULE produces no date (its BY parts never meet); it was not expanded");
    }
  }

  /**
   * Visits the rule's local wall times in [fromLocal, toLocal), ascending,
   * until `visit` returns false. Dates before DTSTART are never produced.
   */
  each(fromLocal: number, toLocal: number, visit: (local: number) => boolean): void {
    const until = Math.min(this.lastLocal ?? Infinity, toLocal - 1);
    if (until < fromLocal) return;
    const anchor = this.fastForward(fromLocal);
    const lowest = Math.max(fromLocal, this.startLocal);
    this.plain ??= plainShape(this.options);
    if (this.plain !== false) {
      // The anchor is DTSTART itself when the range starts before it: the walk starts at midnight of its period.
      const periodStart = this.plain.periodMs === DAY_MS ? floorTo(anchor, DAY_MS) : this.weekStart(anchor);
      eachPlain(this.plain, periodStart, lowest, until, visit);
      return;
    }
    const rule = new RRule({ ...this.options, dtstart: new Date(anchor), until: new Date(until) }, true);
    rule.between(new Date(lowest), new Date(toLocal), true, (date) => {
      const local = date.getTime();
      if (local >= toLocal) return false;
      return visit(local);
    });
  }

  /** The start of a period counted from DTSTART that lies at or before `target`. */
  private fastForward(target: number): number {
    const start = new Date(this.startLocal);
    const interval = this.options.interval ?? 1;
    if (target <= this.startLocal) return this.startLocal;
    switch (this.options.freq) {
      case RRule.YEARLY: {
        const years = new Date(target).getUTCFullYear() - start.getUTCFullYear();
        return civil(start.getUTCFullYear() + wholePeriods(years, interval), 1, 1);
      }
      case RRule.MONTHLY: {
        const at = new Date(target);
        const months = (at.getUTCFullYear() - start.getUTCFullYear()) * 12 + at.getUTCMonth() - start.getUTCMonth();
        const monthIndex = start.getUTCMonth() + wholePeriods(months, interval);
        return civil(start.getUTCFullYear() + Math.floor(monthIndex / 12), (monthIndex % 12) + 1, 1);
      }
      case RRule.WEEKLY: {
        const weekStart = this.weekStart(this.startLocal);
        const weeks = Math.floor((target - weekStart) / (7 * DAY_MS));
        return weekStart + wholePeriods(weeks, interval) * 7 * DAY_MS;
      }
      case RRule.DAILY: {
        const dayStart = floorTo(this.startLocal, DAY_MS);
        return dayStart + wholePeriods(Math.floor((target - dayStart) / DAY_MS), interval) * DAY_MS;
      }
      case RRule.HOURLY:
        return fixedPeriodStart(this.startLocal, target, HOUR_MS, interval);
      case RRule.MINUTELY:
        return fixedPeriodStart(this.startLocal, target, MINUTE_MS, interval);
      default:
        return fixedPeriodStart(this.startLocal, target, 1000, interval);
    }
  }

  /** Midnight of the first day of the week (by WKST) holding `local`. */
  private weekStart(local: number): number {
    const day = floorTo(local, DAY_MS);
    const weekday = (new Date(day).getUTCDay() + 6) % 7;
    const wkst = Number(this.options.wkst ?? 0);
    return day - ((weekday - wkst + 7) % 7) * DAY_MS;
  }
}

/**
 * A DAILY or WEEKLY rule with nothing but weekdays and times of day, the
 * shape most recurring events have (Google writes FREQ=WEEKLY;BYDAY=MO,WE):
 * its dates are a few days of each period at a few times, so they are
 * counted out here rather than by rrule, which builds a year of day masks to
 * find them. A test holds the two to the same dates.
 */
interface PlainShape {
  /** DAY_MS for DAILY, a week for WEEKLY; periods start at midnight (WEEKLY: of WKST). */
  readonly periodMs: number;
  readonly interval: number;
  /** Days into a period that hold dates, ascending (DAILY: [0]). */
  readonly days: readonly number[];
  /** DAILY with BYDAY: the weekdays kept (Monday 0); undefined keeps every day. */
  readonly weekdays?: ReadonlySet<number>;
  /** Times of day, ascending, in ms. */
  readonly times: readonly number[];
}

function plainShape(options: Partial<Options>): PlainShape | false {
  const { freq, byweekday, byhour, byminute, bysecond } = options;
  if (freq !== RRule.WEEKLY && freq !== RRule.DAILY) return false;
  if ([options.bysetpos, options.bymonth, options.bymonthday, options.byyearday, options.byweekno].some((part) => part != null)) {
    return false;
  }
  if (!Array.isArray(byhour) || !Array.isArray(byminute) || !Array.isArray(bysecond)) return false;
  let weekdays: number[] | undefined;
  if (byweekday != null) {
    if (!Array.isArray(byweekday)) return false;
    weekdays = [];
    for (const day of byweekday) {
      if (typeof day === "number") weekdays.push(day);
      else if (typeof day === "object" && day.n == null) weekdays.push(day.weekday);
      else return false;
    }
  }
  const times: number[] = [];
  for (const hour of byhour)
    for (const minute of byminute) for (const second of bysecond) times.push(((hour * 60 + minute) * 60 + second) * 1000);
  const sorted = (list: Iterable<number>) => [...new Set(list)].sort((a, b) => a - b);
  if (freq === RRule.DAILY) {
    return { periodMs: DAY_MS, interval: options.interval ?? 1, days: [0], weekdays: weekdays && new Set(weekdays), times: sorted(times) };
  }
  if (weekdays === undefined) return false;
  const wkst = Number(options.wkst ?? 0);
  return {
    periodMs: 7 * DAY_MS,
    interval: options.interval ?? 1,
    days: sorted(weekdays.map((day) => (day - wkst + 7) % 7)),
    times: sorted(times),
  };
}

/** The dates of a plain rule in [lowest, until], from the period starting at `anchor` (a midnight), until `visit` returns false. */
function eachPlain(shape: PlainShape, anchor: number, lowest: number, until: number, visit: (local: number) => boolean): void {
  const step = shape.periodMs * shape.interval;
  for (let period = anchor; period <= until; period += step) {
    for (const day of shape.days) {
      const midnight = period + day * DAY_MS;
      // 1970-01-01 was a Thursday: Monday is 0.
      if (shape.weekdays !== undefined && !shape.weekdays.has((((Math.floor(midnight / DAY_MS) + 3) % 7) + 7) % 7)) continue;
      for (const time of shape.times) {
        const local = midnight + time;
        if (local > until) return;
        if (local >= lowest && !visit(local)) return;
      }
    }
  }
}

/** The number of whole INTERVAL-multiples of periods in `periods`, times INTERVAL. */
function wholePeriods(periods: number, interval: number): number {
  return Math.max(0, Math.floor(periods / interval) * interval);
}

function fixedPeriodStart(startLocal: number, target: number, periodMs: number, interval: number): number {
  const periodStart = floorTo(startLocal, periodMs);
  return periodStart + wholePeriods(Math.floor((target - periodStart) / periodMs), interval) * periodMs;
}

/** UNTIL as a local wall time: a UTC UNTIL is placed in the zone; a DATE UNTIL of a timed series ends its day. */
function untilAsLocal(text: string, zone: ZoneRules, allDay: boolean): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z?))?$/.exec(text);
  if (match === null) throw new RuleRefused("UNREADABLE_RRULE", "RRULE UNTIL is not a date or date-time");
  const [, year, month, day, hour, minute, second, z] = match;
  const local = civil(Number(year), Number(month), Number(day), Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0));
  if (hour === undefined) return allDay ? local : local + DAY_MS - 1000;
  return z === "Z" ? instantToLocal(zone, local) : local;
}

function numbers(value: unknown): number[] | null {
  if (value === undefined || value === null) return null;
  const list = (Array.isArray(value) ? value : [value]).map(Number);
  if (list.some((item) => !Number.isInteger(item))) throw new RuleRefused("UNREADABLE_RRULE", "RRULE has a non-integer BY value");
  return list;
}

function ascending(list: number[] | null): number[] | null {
  return list === null ? null : [...new Set(list)].sort((a, b) => a - b);
}

function weekdays(value: unknown): Options["byweekday"] {
  if (value === undefined || value === null) return null;
  return (Array.isArray(value) ? value : [value]).map((item) => {
    const match = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(String(item).toUpperCase());
    if (match === null) throw new RuleRefused("UNREADABLE_RRULE", "RRULE BYDAY has an unreadable weekday");
    const weekday = new rrule.Weekday(WEEKDAYS.indexOf(match[2]));
    return match[1] === undefined ? weekday : weekday.nth(Number(match[1]));
  });
}

/** ical.js numbers weekdays SU=1..SA=7; rrule numbers them MO=0..SU=6. */
function icalWeekdayToRrule(value: unknown): number {
  if (typeof value === "string") return Math.max(0, WEEKDAYS.indexOf(value.toUpperCase()));
  return (Number(value) + 5) % 7;
}

/**
 * Refuses an HOURLY, MINUTELY or SECONDLY rule whose INTERVAL never lands on
 * a time its BYHOUR/BYMINUTE/BYSECOND allow (FREQ=MINUTELY;INTERVAL=15;
 * BYMINUTE=10 from :00): rrule searches for such a time forever. Stepping by
 * INTERVAL units from DTSTART reaches exactly the times of day congruent to
 * DTSTART's modulo gcd(INTERVAL, units per day).
 */
function checkTimeOfDayReachable(options: Partial<Options>, startLocal: number): void {
  const freq = options.freq!;
  if (freq < RRule.HOURLY) return;
  const unit = freq === RRule.HOURLY ? HOUR_MS : freq === RRule.MINUTELY ? MINUTE_MS : 1000;
  const perDay = DAY_MS / unit;
  const step = gcd(options.interval ?? 1, perDay);
  const startIndex = Math.floor((startLocal - floorTo(startLocal, DAY_MS)) / unit) % step;
  const all = (count: number) => Array.from({ length: count }, (_, i) => i);
  const list = (value: unknown, count: number) => (Array.isArray(value) ? (value as number[]) : all(count));
  const hours = list(options.byhour, 24);
  const minutes = freq >= RRule.MINUTELY ? list(options.byminute, 60) : [0];
  const seconds = freq >= RRule.SECONDLY ? list(options.bysecond, 60) : [0];
  const unitsPerHour = 3_600_000 / unit;
  for (const hour of hours) {
    for (const minute of minutes) {
      for (const second of seconds) {
        const index = hour * unitsPerHour + (freq >= RRule.MINUTELY ? minute * (60_000 / unit) : 0) + (freq >= RRule.SECONDLY ? second : 0);
        if (index % step === startIndex) return;
      }
    }
  }
  throw new RuleRefused(
    "RRULE_NEVER_MATCHES",
    "RRULE's INTERVAL never reaches a time its BYHOUR/BYMINUTE/BYSECOND allow; it was not expanded",
  );
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Refuses a BYSETPOS that no period can satisfy: rrule would walk every
 * period (every minute, for FREQ=MINUTELY) to the year 9999 looking for it.
 * A period holds at most (its days) x (its times of day) dates; the times are
 * the BYHOUR/BYMINUTE/BYSECOND combinations below the frequency.
 */
function checkSetPositions(options: Partial<Options>): void {
  const positions = options.bysetpos;
  if (!Array.isArray(positions)) return;
  if (positions.some((position) => position === 0 || Math.abs(position) > 366)) {
    throw new RuleRefused("UNREADABLE_RRULE", "RRULE BYSETPOS must be 1 to 366 or -366 to -1");
  }
  const freq = options.freq!;
  const size = (list: unknown) => (Array.isArray(list) ? list.length : 1);
  const times =
    (freq < RRule.HOURLY ? size(options.byhour) : 1) *
    (freq < RRule.MINUTELY ? size(options.byminute) : 1) *
    (freq < RRule.SECONDLY ? size(options.bysecond) : 1);
  const most = DAYS_PER_PERIOD[freq] * times;
  if (positions.every((position) => Math.abs(position) > most)) {
    throw new RuleRefused(
      "RRULE_NEVER_MATCHES",
      `RRULE BYSETPOS asks for position ${positions.join(",")} but each period of the rule holds at most ${most} date${most === 1 ? "" : "s"}; it produces no date and was not expanded`,
    );
  }
}

function checkCost(options: Partial<Options>): void {
  const size = (list: unknown) => (Array.isArray(list) ? list.length : 1);
  let perPeriod =
    size(options.bymonth) *
    size(options.byweekno) *
    size(options.byyearday) *
    size(options.bymonthday) *
    size(options.byweekday) *
    size(options.byhour) *
    size(options.byminute) *
    size(options.bysecond);
  // A bare weekday matches every such day of a month or a year.
  if (Array.isArray(options.byweekday) && options.freq === RRule.YEARLY && options.bymonth === null) perPeriod *= 53;
  else if (Array.isArray(options.byweekday) && options.freq! <= RRule.MONTHLY) perPeriod *= 5;
  if (perPeriod > MAX_DATES_PER_PERIOD) {
    throw new RuleRefused(
      "RRULE_TOO_EXPENSIVE",
      `RRULE would generate up to ${perPeriod} dates per period (limit ${MAX_DATES_PER_PERIOD}); it was not expanded`,
    );
  }
}

/**
 * An RRULE's text in English words, as the rrule package writes them
 * ("every week on Monday, Wednesday"); "" for a rule it cannot read. Words
 * only: no dates are expanded, so any rule costs the same.
 */
export function ruleInWords(ruleText: string): string {
  try {
    return RRule.fromString(ruleText).toText();
  } catch {
    return "";
  }
}
