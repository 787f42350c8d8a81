/**
 * The registry's records and refusals as the contract's messages: a spec
 * message reads as the plain spec the registry checks and comes back
 * unchanged as a record's message; every field the registry finds at fault
 * is named as the contract names it; and each refusal kind has its reason.
 */
import { create, equals } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { CalendarSpecSchema, CreateCalendarRequestSchema, PersonSpecSchema, Weekday } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { CalqError } from "../../src/calq-error.js";
import { type CalendarRecord, checkCalendarSpec, checkPersonSpec, type PersonRecord, RegistryError } from "../../src/registry/index.js";
import {
  calendarSpecOf,
  personSpecOf,
  registeredCalendarOf,
  registeredPersonOf,
  registryRefusal,
  unknownFields,
} from "../../src/server/registry-messages.js";

const STAMP = { etag: "0123456789abcdef", createdBy: "admin", createdAt: 0, updatedBy: "admin", updatedAt: 0, changeNumber: 7 };

describe("registry messages", () => {
  it("read a calendar spec as the registry checks it, and give a record back as the message it was written from", () => {
    const message = create(CalendarSpecSchema, {
      id: "team",
      displayName: "Team",
      source: {
        kind: {
          case: "http",
          value: { url: "https://calendar.example.com/team.ics", headers: [{ name: "Authorization", env: "TEAM_AUTH" }] },
        },
      },
      timezone: "Europe/Berlin",
      refreshInterval: { seconds: 60n },
      readers: ["an"],
      freeBusyReaders: ["binh"],
      shardKey: "an",
    });
    const spec = checkCalendarSpec(calendarSpecOf(message));
    expect(spec).toMatchObject({ name: "Team", zone: "Europe/Berlin", refreshMs: 60_000, source: { kind: "http" } });
    const record: CalendarRecord = { ...spec, shardGroup: "g1", ...STAMP };
    const back = registeredCalendarOf(record, "stale");
    expect(equals(CalendarSpecSchema, back.spec!, message)).toBe(true);
    expect(back).toMatchObject({ shardGroup: "g1", etag: STAMP.etag, changeNumber: 7n });
  });

  it("read a person's working hours and first weekday, and give them back", () => {
    const message = create(PersonSpecSchema, {
      principalId: "an",
      primaryCalendarId: "team",
      timezone: "Asia/Ho_Chi_Minh",
      workingHours: { days: [Weekday.MONDAY, Weekday.WEDNESDAY], start: "09:00", endExclusive: "17:30" },
      weekStart: Weekday.SUNDAY,
      emails: ["an@example.com"],
    });
    const spec = checkPersonSpec(personSpecOf(message));
    expect(spec).toMatchObject({ workingHours: { days: ["MO", "WE"] }, weekStart: "SU", primaryCalendar: "team" });
    const record: PersonRecord = { ...spec, shardGroup: undefined, etag: STAMP.etag, updatedBy: "admin", updatedAt: 0, changeNumber: 3 };
    expect(equals(PersonSpecSchema, registeredPersonOf(record).spec!, message)).toBe(true);
  });

  it("name every field the registry finds at fault as the contract names it", () => {
    const faults = [
      "(the spec)",
      "name",
      "zone",
      "refreshMs",
      "freeBusyReaders[2]",
      "shardKey",
      "source.kind",
      "source.path",
      "source.url",
      "source.headers[1].value.env",
      "source.headers[0].name",
      "source.collectionUrl",
      "source.credential.env",
      "source.scheme",
      "readers[0]",
    ];
    const refusal = registryRefusal(
      new RegistryError("INVALID_SPEC", "bad", { violations: faults.map((field) => ({ field, description: "wrong" })) }),
      "calendar",
    );
    expect(refusal).toBeInstanceOf(CalqError);
    expect((refusal as CalqError).violations.map((violation) => violation.field)).toEqual([
      "calendar",
      "calendar.display_name",
      "calendar.timezone",
      "calendar.refresh_interval",
      "calendar.free_busy_readers[2]",
      "calendar.shard_key",
      "calendar.source",
      "calendar.source.file.path",
      "calendar.source.http.url",
      "calendar.source.http.headers[1].env",
      "calendar.source.http.headers[0].name",
      "calendar.source.caldav.collection_url",
      "calendar.source.caldav.credential_env",
      "calendar.source.caldav.credential_scheme",
      "calendar.readers[0]",
    ]);
    const person = registryRefusal(
      new RegistryError("INVALID_SPEC", "bad", {
        violations: ["principalId", "primaryCalendar", "workingHours.days[1]", "workingHours.endExclusive", "weekStart", "emails[0]"].map(
          (field) => ({ field, description: "wrong" }),
        ),
      }),
      "person",
    ) as CalqError;
    expect(person.violations.map((violation) => violation.field)).toEqual([
      "person.principal_id",
      "person.primary_calendar_id",
      "person.working_hours.days[1]",
      "person.working_hours.end_exclusive",
      "person.week_start",
      "person.emails[0]",
    ]);
  });

  it("give each refusal kind its reason, and leave a fault of the registry itself for the log", () => {
    const reason = (error: RegistryError, kind: "calendar" | "person" = "calendar") => (registryRefusal(error, kind) as CalqError).reason;
    expect(reason(new RegistryError("CALENDAR_ALREADY_EXISTS", "taken"))).toBe("CALENDAR_ALREADY_EXISTS");
    expect(reason(new RegistryError("NOT_FOUND", "none"))).toBe("CALENDAR_NOT_FOUND");
    expect(reason(new RegistryError("NOT_FOUND", "none"), "person")).toBe("PERSON_NOT_FOUND");
    expect(reason(new RegistryError("ETAG_MISMATCH", "late"))).toBe("ETAG_MISMATCH");
    expect(reason(new RegistryError("UNAVAILABLE", "away"))).toBe("REGISTRY_UNAVAILABLE");
    expect(reason(new RegistryError("INVALID_PAGE_TOKEN", "other"))).toBe("INVALID_PAGE");
    const damaged = new RegistryError("DATA_LOSS", "damaged");
    expect(registryRefusal(damaged, "calendar")).toBe(damaged);
  });

  it("find the fields a request holds that the contract does not define, wherever they sit", () => {
    const request = create(CreateCalendarRequestSchema, {
      calendar: { id: "team", source: { kind: { case: "file", value: { path: "/x" } } } },
    });
    expect(unknownFields(CreateCalendarRequestSchema, request, "request")).toEqual([]);
    const source = request.calendar!.source!;
    if (source.kind.case !== "file") throw new Error("a file source");
    source.kind.value.$unknown = [{ no: 9, wireType: 0, data: new Uint8Array([1]) }];
    expect(unknownFields(CreateCalendarRequestSchema, request, "request").map((violation) => violation.field)).toEqual([
      "request.calendar.source.file.#9",
    ]);
  });
});
