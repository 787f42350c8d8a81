/**
 * The flags of `calq calendars` and `calq people`, each written once, in the
 * shape of request-flags.ts's table (its flagLines writes the help): a flag
 * that sets a bounded request field states the bounds the contract declares
 * on it, read from gen/calq.binpb's bytes, so `calq help` loads no
 * protobuf-es. Fields are named through gen/'s message types.
 */
import type { ListRegisteredCalendarsRequest } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { describeBounds } from "../contract/bounds-text.js";
import type { FlagHelp, RequestField } from "./request-flags.js";

/** Names a field of request type `M`; the compiler checks both names against gen/. */
function fieldOf<M extends { readonly $typeName: string }>(
  message: M["$typeName"],
  property: Exclude<keyof M, "$typeName" | "$unknown"> & string,
): RequestField {
  return { message, property };
}

/** Every flag of the two commands. */
export const REGISTRY_FLAGS = {
  file: { flag: "--file PATH", text: "the calendar's ICS is this file on the replicas' disk (an absolute path)" },
  url: { flag: "--url URL", text: "the calendar's ICS is fetched from this http(s) URL, without credentials in it" },
  header: {
    flag: "--header NAME=VAR",
    text: "with --url: send header NAME with the value of environment variable VAR on the replicas; repeat it for several",
  },
  caldav: { flag: "--caldav URL", text: "the calendar is this CalDAV collection; with --credential-env and --credential-scheme" },
  credentialEnv: { flag: "--credential-env VAR", text: "with --caldav: the environment variable holding the credential on the replicas" },
  credentialScheme: {
    flag: "--credential-scheme basic|bearer",
    text: 'with --caldav: the variable holds "user:password" (basic) or a token (bearer)',
  },
  name: { flag: "--name TEXT", text: "the name shown for the calendar (default: its id)" },
  timezone: { flag: "--timezone ZONE", text: "IANA zone of floating times and all-day days (default: the feed's X-WR-TIMEZONE, else UTC)" },
  refresh: { flag: "--refresh DURATION", text: "how often the source is checked, as 30s, 5m or 1h (default 5m)" },
  reader: { flag: "--reader ID", text: "a principal who may read the calendar's events; repeat it for several" },
  freeBusyReader: { flag: "--free-busy-reader ID", text: "a principal who may see its busy time only; repeat it for several" },
  shardKey: {
    flag: "--shard-key KEY",
    text: "what places the calendar in a shard group (default: its id); give a user's calendars the user's id",
  },
  etag: {
    flag: "--etag E",
    text: "change only this version (the etag `calq calendars ls` shows); another admin's change first is refused",
  },
  updateEtag: {
    flag: "--etag E",
    text: "the version this change is based on; without it, the version read just before (the change is refused if another lands between)",
  },
  prefix: { flag: "--prefix P", text: "only ids starting with P" },
  listReader: { flag: "--reader ID", text: "only calendars this principal may read (as a reader or a free/busy reader)" },
  group: { flag: "--group G", text: "only calendars of shard group G" },
  health: {
    flag: "--health H",
    text: "only calendars whose feed is healthy, stale or unloaded on the replica that answers (its own group's)",
  },
  pageSize: {
    flag: "--page-size N",
    field: fieldOf<ListRegisteredCalendarsRequest>("calq.v1.ListRegisteredCalendarsRequest", "pageSize"),
    text: (bounds) => `calendars per page: ${describeBounds(bounds)}`,
  },
  pageToken: { flag: "--page-token T", text: "continue from a page's token" },
  all: { flag: "--all", text: "follow page tokens to the last page" },
  primary: { flag: "--primary ID", text: 'the calendar "primary" names for this person' },
  personTimezone: { flag: "--timezone ZONE", text: "the person's IANA zone" },
  workingHours: { flag: "--working-hours FROM-TO", text: "the person's local working hours, as 09:00-17:00 (24:00 ends the day)" },
  workingDays: { flag: "--working-days DAYS", text: "their working weekdays, 1 Monday to 7 Sunday: 1-5 (the default), 1,3,5 or 1-3,6" },
  weekStart: { flag: "--week-start DAY", text: "the first day of their week, 1 Monday to 7 Sunday (default 1)" },
  email: { flag: "--email ADDRESS", text: "one of their e-mail addresses; repeat it for several" },
  json: { flag: "--json", text: "print what the service sent, as JSON" },
} as const satisfies Record<string, FlagHelp>;
