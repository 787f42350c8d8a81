import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadContractRegistry, proseOf, registryFromBytes } from "../../src/gateway/descriptors.js";
import { ANY_CALL_LEAD, buildToolCatalog, REFUSALS_LEAD, SERVICE_NAME } from "../../src/gateway/tool-schemas.js";

const catalog = buildToolCatalog();
const tool = (name: string) => catalog.tools.find((candidate) => candidate.name === name)!;
const search = tool("search_calendar_events");

const scratch = mkdtempSync(join(tmpdir(), "calq-proto-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The catalog of proto/ with one edit applied, built by buf the way `npm run generate` builds gen/calq.binpb. */
function catalogOfEditedProto(edit: (text: string) => string) {
  const dir = mkdtempSync(join(scratch, "edit-"));
  cpSync("proto", join(dir, "proto"), { recursive: true });
  cpSync("buf.yaml", join(dir, "buf.yaml"));
  const file = join(dir, "proto/calq/v1/calendar_service.proto");
  writeFileSync(file, edit(readFileSync(file, "utf8")));
  execFileSync(join(process.cwd(), "node_modules/.bin/buf"), ["build", "--as-file-descriptor-set", "-o", "out.binpb"], { cwd: dir });
  return buildToolCatalog(registryFromBytes(readFileSync(join(dir, "out.binpb"))));
}

/** The codes a description's error guide lists ("- code: instruction" after the refusal paragraph's first line). */
/** The reasons SearchEvents lists in its `reasons` option, and UNAUTHENTICATED, in calq.v1.Reason's order, as codes. */
const SEARCH_REASON_CODES = [
  "invalid_interval",
  "invalid_timestamp",
  "unknown_timezone",
  "timezone_offset_mismatch",
  "ambiguous_timezone",
  "nonexistent_local_time",
  "invalid_match_mode",
  "invalid_limit",
  "invalid_cursor",
  "cursor_expired",
  "calendar_not_accessible",
  "provider_unavailable",
];

/** The gateway's own codes, as every tool lists them after the contract's. */
function everyGatewayCode(): string[] {
  return ["invalid_arguments", "service_unavailable", "service_overloaded"];
}

/** The codes a tool's description lists: its method's own, then those any call can get, each list on its own line. */
function errorCodesIn(description: string): string[] {
  const listed = (lead: string) => {
    const line = description.split("\n").find((candidate) => candidate.startsWith(lead));
    return line === undefined
      ? []
      : line
          .slice(lead.length)
          .replace(/\.$/, "")
          .split(", ")
          .map((code) => code.trim());
  };
  return [...listed(REFUSALS_LEAD), ...listed(ANY_CALL_LEAD)];
}

describe("tools generated from the proto descriptors", () => {
  it("offers a tool for each method of the search service but the streaming WatchChanges", () => {
    expect(catalog.tools.map((candidate) => [candidate.name, candidate.method.name])).toEqual([
      ["search_calendar_events", "SearchEvents"],
      ["search_across_calendars", "SearchEventsAcrossCalendars"],
      ["get_event", "GetEvent"],
      ["list_calendars", "ListCalendars"],
      ["get_user_context", "GetCallerContext"],
      ["query_free_busy", "QueryFreeBusy"],
      ["find_free_slots", "FindFreeSlots"],
      ["list_changes", "ListChanges"],
      ["find_meeting_times", "FindMeetingTimes"],
    ]);
  });

  it("gives query_free_busy its calendar list, bounded as the service bounds it, and only its own reasons", () => {
    const freeBusy = tool("query_free_busy");
    const schema = freeBusy.inputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(["calendar_ids", "start", "end_exclusive", "timezone"]);
    expect(schema.properties.calendar_ids).toMatchObject({ type: "array", items: { type: "string" }, minItems: 1, maxItems: 50 });
    expect(schema.required).toEqual(Object.keys(schema.properties));
    const codes = errorCodesIn(freeBusy.description);
    expect(codes).toContain("invalid_calendar_ids");
    expect(codes).toContain("unauthenticated");
    expect(codes).not.toContain("invalid_cursor");
    expect(codes).not.toContain("invalid_text_query");
  });

  it("keeps the contract's field names, all required, the optional ones nullable, nothing else allowed", () => {
    const schema = search.inputSchema as {
      properties: Record<string, { type: unknown; enum?: unknown }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties)).toEqual([
      "calendar_id",
      "start",
      "end_exclusive",
      "timezone",
      "match_mode",
      "limit",
      "cursor",
      "text_query",
      "status",
      "transparency",
      "my_participation",
      "categories",
    ]);
    expect(schema.required).toEqual(Object.keys(schema.properties));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.calendar_id.type).toBe("string");
    expect(schema.properties.start.type).toBe("string");
    expect(schema.properties.limit.type).toEqual(["integer", "null"]);
    // The service's own bound (1 to 100, or 0 for the default): a model following the schema is never refused INVALID_LIMIT.
    expect(schema.properties.limit).toMatchObject({ minimum: 0, maximum: 100 });
    expect(schema.properties.cursor.type).toEqual(["string", "null"]);
    expect(schema.properties.text_query.type).toEqual(["string", "null"]);
  });

  it("makes match_mode a closed enum of lower-case names, without the refused unspecified value", () => {
    const matchMode = (search.inputSchema as { properties: Record<string, { type: unknown; enum: unknown; description: string }> })
      .properties.match_mode;
    expect(matchMode.type).toBe("string");
    expect(matchMode.enum).toEqual(["overlap", "start_within"]);
    expect(matchMode.description).toContain("- overlap: Every occurrence sharing an instant with the window");
    expect(matchMode.description).toContain("- start_within: Every occurrence starting in the window");
  });

  it("takes each property description from the field's proto comment, in the tools' vocabulary", () => {
    const request = loadContractRegistry().getMessage("calq.v1.SearchEventsRequest")!;
    const properties = (search.inputSchema as { properties: Record<string, { description: string }> }).properties;
    const timezone = proseOf(request.fields.find((field) => field.name === "timezone")!);
    expect(properties.timezone.description).toBe(timezone.replace("GetCallerContext", "get_user_context"));
    expect(properties.calendar_id.description).toContain('An id from list_calendars, or "primary"');
    expect(properties.start.description).toContain("else timezone_offset_mismatch");
  });

  it("says in the search tool what docs/gateway.md promises: read-only, half-open, empty results, paging, every error code", () => {
    const text = search.description;
    expect(text).toContain("Read-only: changes nothing.");
    expect(text).toContain("half-open");
    const output = search.outputSchema as { properties: Record<string, { description: string }> };
    expect(output.properties.events.description).toContain("does not mean the calendar is empty");
    expect(output.properties.next_cursor.description).toContain("pass it back unchanged");
    for (const code of SEARCH_REASON_CODES.filter((code) => code !== "invalid_match_mode" && code !== "invalid_limit")) {
      expect(errorCodesIn(text)).toContain(code);
    }
    expect(text).not.toMatch(/\bINVALID_INTERVAL\b/);
    expect(errorCodesIn(text)).toContain("service_overloaded");
  });

  it("leaves out the reasons its strict schema makes impossible (match_mode is a closed enum, limit is bounded)", () => {
    expect(errorCodesIn(search.description)).not.toContain("invalid_match_mode");
    expect(errorCodesIn(search.description)).not.toContain("invalid_limit");
    expect(catalog.errors.map((entry) => entry.code)).toContain("invalid_limit");
  });

  it("tells the model in get_user_context what to do when no zone is recorded", () => {
    const text = tool("get_user_context").description;
    expect(text).toContain("When no zone is recorded, ask the user for their time zone or city before searching");
    const output = tool("get_user_context").outputSchema as { properties: Record<string, { description: string }> };
    expect(output.properties.timezone.description).toContain("empty when none is recorded");
    expect(text).not.toContain("invalid_interval");
  });

  it("lists for each tool only the codes its method can give: its `reasons` option, those of every call, the gateway's own", () => {
    const everyCall = ["unauthenticated", "internal", "invalid_arguments", "service_unavailable", "service_overloaded"];
    expect(errorCodesIn(tool("list_calendars").description)).toEqual(everyCall);
    expect(errorCodesIn(tool("get_user_context").description)).toEqual(everyCall);
    const guarded = new Set(["invalid_match_mode", "invalid_limit"]);
    expect(errorCodesIn(search.description)).toEqual([
      ...SEARCH_REASON_CODES.filter((code) => !guarded.has(code)),
      "invalid_text_query",
      "work_budget_exhausted",
      "calendar_removed",
      "caller_addresses_unknown",
      "invalid_filter",
      "unauthenticated",
      "internal",
      ...everyGatewayCode(),
    ]);
    // The gateway resends a call refused with calendar_in_other_shard_group to the group it names; a model never sees it.
    expect(errorCodesIn(search.description)).not.toContain("calendar_in_other_shard_group");
    expect(errorCodesIn(tool("query_free_busy").description)).toContain("calendars_span_shard_groups");
    expect(errorCodesIn(tool("search_across_calendars").description)).toContain("calendars_span_shard_groups");
    expect(errorCodesIn(search.description)).not.toContain("calendars_span_shard_groups");
    expect(errorCodesIn(search.description)).not.toContain("feed_rejected");
  });

  it("lists a reason in a tool's guide once the method's `reasons` option names it", () => {
    const edited = catalogOfEditedProto((text) =>
      text.replace(
        "rpc ListCalendars(ListCalendarsRequest) returns (ListCalendarsResponse) {",
        "rpc ListCalendars(ListCalendarsRequest) returns (ListCalendarsResponse) {\n    option (reasons) = REASON_INVALID_CURSOR;",
      ),
    );
    const list = edited.tools.find((candidate) => candidate.name === "list_calendars")!;
    expect(errorCodesIn(list.description)).toEqual(["invalid_cursor", "unauthenticated", "internal", ...everyGatewayCode()]);
  });

  it("reads the error guide from calq.v1.Reason: one instruction and status code per reason", () => {
    expect(catalog.errors.map((entry) => entry.reason)).toHaveLength(41);
    expect(catalog.errors.find((entry) => entry.code === "ambiguous_timezone")).toEqual({
      reason: "AMBIGUOUS_TIMEZONE",
      status: "INVALID_ARGUMENT",
      code: "ambiguous_timezone",
      instruction: 'The wall time happens twice; send one of the instants in the metadata ("earlier", "later") or ask the user which.',
    });
    expect(catalog.errors.find((entry) => entry.code === "cursor_expired")?.status).toBe("FAILED_PRECONDITION");
    expect(catalog.errors.find((entry) => entry.code === "provider_unavailable")?.instruction).toBe(
      "The calendar's feed has never loaded; retry later.",
    );
  });

  it("describes the structured result from the response messages", () => {
    const output = search.outputSchema as {
      properties: Record<string, { type: string; items?: { properties: Record<string, { enum?: unknown; format?: string }> } }>;
    };
    const occurrence = output.properties.events.items!.properties;
    expect(occurrence.window_relation.enum).toEqual(["unspecified", "inside", "crosses_start", "crosses_end", "spans", "instant"]);
    expect(occurrence.start_time.format).toBe("date-time");
    expect(output.properties.next_cursor.type).toBe("string");
  });

  it("changes a tool description when a proto comment changes", () => {
    const edited = catalogOfEditedProto((text) =>
      text
        .replace("// Lists the calendars the caller may read.\n", "// Lists every calendar this caller can search.\n")
        .replace("the local times: the caller's recorded one", "the local times: the user's recorded one"),
    );
    const list = edited.tools.find((candidate) => candidate.name === "list_calendars")!;
    expect(list.description.startsWith("Lists every calendar this caller can search.\n")).toBe(true);
    const timezone = (edited.tools[0].inputSchema as { properties: Record<string, { description: string }> }).properties.timezone;
    expect(timezone.description).toContain("the user's recorded one (get_user_context)");
    expect(edited.tools[0].description).toBe(search.description);
  });

  it("is built from a descriptor set that matches proto/ (gen/calq.binpb is current)", () => {
    const fresh = catalogOfEditedProto((text) => text);
    expect(JSON.stringify(fresh.tools.map(({ method, ...rest }) => rest))).toBe(
      JSON.stringify(catalog.tools.map(({ method, ...rest }) => rest)),
    );
    expect(fresh.service.typeName).toBe(SERVICE_NAME);
  });
});
