/**
 * The LLM tools stay read-only: every tool is a method of CalendarService,
 * and no method of CalendarAdminService (the calendar registry's changes
 * among them) becomes a tool.
 */
import { describe, expect, it } from "vitest";
import { CalendarAdminService } from "../../gen/calq/v1/calendar_admin_service_pb.js";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";

describe("the tools", () => {
  it("are methods of the read-only CalendarService only: no admin method, no registry change, is a tool", () => {
    const { tools } = buildToolCatalog();
    expect(tools.every((tool) => tool.method.parent.typeName === CalendarService.typeName)).toBe(true);
    const adminMethods = new Set(CalendarAdminService.methods.map((method) => method.name));
    expect(adminMethods).toContain("CreateCalendar");
    expect(tools.filter((tool) => adminMethods.has(tool.method.name))).toEqual([]);
  });
});
