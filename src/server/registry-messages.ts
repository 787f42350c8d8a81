/**
 * The calendar registry's records and refusals as the contract's messages
 * (calendar_admin_service.proto): a CalendarSpec or PersonSpec message to
 * the plain spec the registry validates, a record back to its message, and
 * a RegistryError to the CalqError the wire carries, with every field at
 * fault named as the contract names it (`calendar.source.http.url`, not the
 * registry's `source.url`). Fields a client sent that the contract does not
 * know are refused too, with the rest, so nothing unread is silently dropped.
 */
import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { durationFromMs, durationMs, timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  CalDavCredentialScheme,
  type CalendarSource,
  CalendarSourceSchema,
  type CalendarSpec as CalendarSpecMessage,
  CalendarSpecSchema,
  LoadHealth as LoadHealthMessage,
  type PersonSpec as PersonSpecMessage,
  PersonSpecSchema,
  PersonWorkingHoursSchema,
  type RegisteredCalendar,
  RegisteredCalendarSchema,
  type RegisteredPerson,
  RegisteredPersonSchema,
  Weekday as WeekdayMessage,
} from "../../gen/calq/v1/calendar_admin_service_pb.js";
import type { LoadHealth } from "../app/calendar-registry.js";
import { CalqError } from "../calq-error.js";
import { assertNever } from "../exhaustive.js";
import {
  type CalendarRecord,
  type CredentialScheme,
  type FieldViolation,
  type PersonRecord,
  RegistryError,
  type CalendarSource as RegistrySource,
  type Weekday,
} from "../registry/index.js";

/** How the contract numbers a CalDAV credential's scheme, as the registry spells it; unspecified is left for the spec's check to refuse. */
const SCHEME_NAMES: Readonly<Record<CalDavCredentialScheme, CredentialScheme | undefined>> = {
  [CalDavCredentialScheme.UNSPECIFIED]: undefined,
  [CalDavCredentialScheme.BASIC]: "basic",
  [CalDavCredentialScheme.BEARER]: "bearer",
};

/** Weekdays as the registry spells them and as the contract numbers them. */
const WEEKDAYS: Readonly<Record<Weekday, WeekdayMessage>> = {
  MO: WeekdayMessage.MONDAY,
  TU: WeekdayMessage.TUESDAY,
  WE: WeekdayMessage.WEDNESDAY,
  TH: WeekdayMessage.THURSDAY,
  FR: WeekdayMessage.FRIDAY,
  SA: WeekdayMessage.SATURDAY,
  SU: WeekdayMessage.SUNDAY,
};
const WEEKDAY_OF = new Map<number, Weekday>(Object.entries(WEEKDAYS).map(([day, number]) => [number, day as Weekday]));

/** Load health as the contract numbers it. */
export const LOAD_HEALTHS: Readonly<Record<LoadHealth, LoadHealthMessage>> = {
  healthy: LoadHealthMessage.HEALTHY,
  stale: LoadHealthMessage.STALE,
  unloaded: LoadHealthMessage.UNLOADED,
};

/** The contract's load health as a filter: undefined for UNSPECIFIED (no filter) and values the contract does not define. */
export function loadHealthFilter(value: LoadHealthMessage): LoadHealth | undefined {
  return (Object.entries(LOAD_HEALTHS) as [LoadHealth, LoadHealthMessage][]).find(([, number]) => number === value)?.[0];
}

/** A CalendarSpec message as the plain spec the registry checks; empty strings are fields not given. */
export function calendarSpecOf(message: CalendarSpecMessage | undefined): unknown {
  if (message === undefined) return undefined;
  return {
    id: message.id,
    ...(message.displayName === "" ? {} : { name: message.displayName }),
    ...(message.source === undefined ? {} : { source: sourceOf(message.source) }),
    ...(message.timezone === "" ? {} : { zone: message.timezone }),
    ...(message.refreshInterval === undefined ? {} : { refreshMs: durationMs(message.refreshInterval) }),
    readers: message.readers,
    freeBusyReaders: message.freeBusyReaders,
    ...(message.shardKey === "" ? {} : { shardKey: message.shardKey }),
  };
}

function sourceOf(source: CalendarSource): unknown {
  const { kind } = source;
  switch (kind.case) {
    case "file":
      return { kind: "file", path: kind.value.path };
    case "http":
      return { kind: "http", url: kind.value.url, headers: kind.value.headers.map(({ name, env }) => ({ name, value: { env } })) };
    case "caldav":
      return {
        kind: "caldav",
        collectionUrl: kind.value.collectionUrl,
        credential: { env: kind.value.credentialEnv },
        scheme: SCHEME_NAMES[kind.value.credentialScheme],
      };
    case undefined:
      return {};
    default:
      return assertNever(kind, "calendar source");
  }
}

/** A PersonSpec message as the plain spec the registry checks. */
export function personSpecOf(message: PersonSpecMessage | undefined): unknown {
  if (message === undefined) return undefined;
  const hours = message.workingHours;
  return {
    principalId: message.principalId,
    ...(message.primaryCalendarId === "" ? {} : { primaryCalendar: message.primaryCalendarId }),
    ...(message.timezone === "" ? {} : { zone: message.timezone }),
    ...(hours === undefined
      ? {}
      : { workingHours: { days: hours.days.map(weekdayOf), start: hours.start, endExclusive: hours.endExclusive } }),
    ...(message.weekStart === WeekdayMessage.UNSPECIFIED ? {} : { weekStart: weekdayOf(message.weekStart) }),
    emails: message.emails,
  };
}

/** A weekday number as the registry spells it; a number the contract does not define stays a number, which the registry refuses. */
function weekdayOf(day: WeekdayMessage): Weekday | number {
  return WEEKDAY_OF.get(day) ?? day;
}

/** A registry calendar as the contract's message, with its load health here when known. */
export function registeredCalendarOf(record: CalendarRecord, health?: LoadHealth): RegisteredCalendar {
  return create(RegisteredCalendarSchema, {
    spec: create(CalendarSpecSchema, {
      id: record.id,
      displayName: record.name,
      source: sourceMessageOf(record.source),
      timezone: record.zone ?? "",
      refreshInterval: durationFromMs(record.refreshMs),
      readers: [...record.readers],
      freeBusyReaders: [...record.freeBusyReaders],
      shardKey: record.shardKey ?? "",
    }),
    shardGroup: record.shardGroup ?? "",
    etag: record.etag,
    createdBy: record.createdBy,
    createTime: timestampFromMs(record.createdAt),
    updatedBy: record.updatedBy,
    updateTime: timestampFromMs(record.updatedAt),
    changeNumber: BigInt(record.changeNumber),
    loadHealth: health === undefined ? LoadHealthMessage.UNSPECIFIED : LOAD_HEALTHS[health],
  });
}

function sourceMessageOf(source: RegistrySource): CalendarSource {
  switch (source.kind) {
    case "file":
      return create(CalendarSourceSchema, { kind: { case: "file", value: { path: source.path } } });
    case "http":
      return create(CalendarSourceSchema, {
        kind: {
          case: "http",
          value: { url: source.url, headers: source.headers.map((header) => ({ name: header.name, env: header.value.env })) },
        },
      });
    case "caldav":
      return create(CalendarSourceSchema, {
        kind: {
          case: "caldav",
          value: {
            collectionUrl: source.collectionUrl,
            credentialEnv: source.credential.env,
            credentialScheme: source.scheme === "basic" ? CalDavCredentialScheme.BASIC : CalDavCredentialScheme.BEARER,
          },
        },
      });
    default:
      return assertNever(source, "registry source kind");
  }
}

/** A registry person as the contract's message. */
export function registeredPersonOf(record: PersonRecord): RegisteredPerson {
  const hours = record.workingHours;
  return create(RegisteredPersonSchema, {
    spec: create(PersonSpecSchema, {
      principalId: record.principalId,
      primaryCalendarId: record.primaryCalendar ?? "",
      timezone: record.zone ?? "",
      workingHours:
        hours === undefined
          ? undefined
          : create(PersonWorkingHoursSchema, {
              days: hours.days.map((day) => WEEKDAYS[day]),
              start: hours.start,
              endExclusive: hours.endExclusive,
            }),
      weekStart: WEEKDAYS[record.weekStart],
      emails: [...record.emails],
    }),
    shardGroup: record.shardGroup ?? "",
    etag: record.etag,
    updatedBy: record.updatedBy,
    updateTime: timestampFromMs(record.updatedAt),
    changeNumber: BigInt(record.changeNumber),
  });
}

/** The paths of every field of `message` (and of the messages in it) that the contract does not define, under `prefix`. */
export function unknownFields<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>, prefix: string): FieldViolation[] {
  const found: FieldViolation[] = [];
  const visit = (reflected: ReflectMessage, path: string) => {
    for (const unknown of reflected.getUnknown() ?? []) {
      found.push({
        field: `${path}.#${unknown.no}`,
        description: `unknown field number ${unknown.no}: this server's contract has no such field`,
      });
    }
    for (const field of reflected.fields) {
      if (!reflected.isSet(field)) continue;
      if (field.fieldKind === "message") visit(reflected.get(field) as ReflectMessage, `${path}.${field.name}`);
      if (field.fieldKind === "list" && field.listKind === "message") {
        const list = reflected.get(field);
        for (let i = 0; i < list.size; i++) visit(list.get(i) as ReflectMessage, `${path}.${field.name}[${i}]`);
      }
    }
  };
  visit(reflect(schema, message), prefix);
  return found;
}

/** The contract's path of each registry field of a calendar spec: the first rule that matches rewrites the path's start. */
const CALENDAR_FIELDS: readonly (readonly [RegExp, string])[] = [
  [/^\(the spec\)$/, ""],
  [/^name/, "display_name"],
  [/^zone/, "timezone"],
  [/^refreshMs/, "refresh_interval"],
  [/^freeBusyReaders/, "free_busy_readers"],
  [/^shardKey/, "shard_key"],
  [/^source\.kind$/, "source"],
  [/^source\.path/, "source.file.path"],
  [/^source\.url/, "source.http.url"],
  [/^source\.headers(\[\d+\])\.value(\.env)?/, "source.http.headers$1.env"],
  [/^source\.headers/, "source.http.headers"],
  [/^source\.collectionUrl/, "source.caldav.collection_url"],
  [/^source\.credential(\.env)?/, "source.caldav.credential_env"],
  [/^source\.scheme/, "source.caldav.credential_scheme"],
  [/^source\.scheme/, "source.caldav.credential_scheme"],
];

/** The same for a person spec. */
const PERSON_FIELDS: readonly (readonly [RegExp, string])[] = [
  [/^\(the spec\)$/, ""],
  [/^principalId/, "principal_id"],
  [/^primaryCalendar/, "primary_calendar_id"],
  [/^zone/, "timezone"],
  [/^workingHours\.endExclusive/, "working_hours.end_exclusive"],
  [/^workingHours/, "working_hours"],
  [/^weekStart/, "week_start"],
];

/** What a spec's fields are called in the request: under `calendar` or `person`. */
export type SpecKind = "calendar" | "person";

function contractPath(kind: SpecKind, field: string): string {
  const rules = kind === "calendar" ? CALENDAR_FIELDS : PERSON_FIELDS;
  const rule = rules.find(([pattern]) => pattern.test(field));
  const path = rule === undefined ? field : field.replace(rule[0], rule[1]);
  return path === "" ? kind : `${kind}.${path}`;
}

/** INVALID_SPEC naming every field at fault, as the contract names them. */
export function invalidSpec(violations: readonly FieldViolation[]): CalqError {
  const [first] = violations;
  const more = violations.length > 1 ? `, and ${violations.length - 1} more (each in the BadRequest)` : "";
  return new CalqError("INVALID_SPEC", `${first.field}: ${first.description}${more}; nothing was applied`, undefined, {}, violations);
}

/** A registry refusal as the contract's: INVALID_SPEC with the contract's field names, and the reason of each kind. */
export function registryRefusal(error: unknown, kind: SpecKind, sentEtag = ""): unknown {
  if (!(error instanceof RegistryError)) return error;
  switch (error.failure) {
    case "INVALID_SPEC":
      if (error.violations.some((violation) => violation.field === "by")) return error;
      return invalidSpec(error.violations.map(({ field, description }) => ({ field: contractPath(kind, field), description })));
    case "CALENDAR_ALREADY_EXISTS":
      return new CalqError("CALENDAR_ALREADY_EXISTS", error.message, "calendar.id");
    case "NOT_FOUND":
      return kind === "calendar"
        ? new CalqError("CALENDAR_NOT_FOUND", "the registry holds no calendar with this id", "calendar_id")
        : new CalqError("PERSON_NOT_FOUND", "the registry holds no settings for this principal; send no etag to create them", "etag");
    case "ETAG_MISMATCH":
      return new CalqError(
        "ETAG_MISMATCH",
        "another change came first: read the record again, and send your change with its new etag",
        "etag",
        { etag_sent: sentEtag },
      );
    case "UNAVAILABLE":
      return new CalqError("REGISTRY_UNAVAILABLE", "the calendar registry's database cannot be reached; nothing was applied, retry later");
    case "INVALID_PAGE_TOKEN":
      return new CalqError("INVALID_PAGE", error.message.replace(/^pageToken/, "page_token"), "page_token");
    case "PLACEMENT_MISMATCH":
    case "LOCKED":
    case "DATA_LOSS":
      return error;
    default:
      return assertNever(error.failure, "registry failure");
  }
}
