import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ReasonSchema } from "../../gen/calq/v1/reasons_pb.js";
import { CalqError, type Reason } from "../../src/calq-error.js";
import { codeOf, toWireError } from "../../src/server/errors.js";

describe("errors at the edge", () => {
  it("answers an unexpected fault INTERNAL with a correlation id only, and logs the rest", () => {
    const logged: Record<string, unknown>[] = [];
    const fault = new Error("ENOENT: /srv/secret/feeds/ceo.ics");
    const wire = toWireError(fault, (record) => logged.push(record), "SearchEvents");
    expect(wire.code).toBe(Code.Internal);
    expect(wire.rawMessage).toMatch(/^internal error; correlation id [0-9a-f-]{36}$/);
    expect(wire.rawMessage).not.toContain("secret");
    const id = wire.rawMessage.split(" ").pop();
    expect(logged).toEqual([expect.objectContaining({ level: "error", correlation_id: id, method: "SearchEvents" })]);
    expect(String(logged[0].error)).toContain("/srv/secret/feeds/ceo.ics");
  });

  it("maps each reason to its gRPC code", () => {
    const code = (reason: ConstructorParameters<typeof CalqError>[0]) => toWireError(new CalqError(reason, "m"), () => {}, "m").code;
    expect(code("CURSOR_EXPIRED")).toBe(Code.FailedPrecondition);
    expect(code("CALENDAR_NOT_ACCESSIBLE")).toBe(Code.PermissionDenied);
    expect(code("UNAUTHENTICATED")).toBe(Code.Unauthenticated);
    expect(code("PROVIDER_UNAVAILABLE")).toBe(Code.Unavailable);
    expect(code("INVALID_LIMIT")).toBe(Code.InvalidArgument);
    expect(code("CALENDAR_NOT_FOUND")).toBe(Code.NotFound);
  });

  it("has a status code in the proto for every reason of calq.v1.Reason, and never OK", () => {
    for (const value of ReasonSchema.values.filter((candidate) => candidate.number !== 0)) {
      const status = codeOf(value.localName as Reason);
      expect(status, value.name).toBeGreaterThan(0);
    }
  });

  it("passes protocol errors through unchanged", () => {
    const protocol = new ConnectError("bad request body", Code.InvalidArgument);
    expect(toWireError(protocol, () => {}, "m")).toBe(protocol);
  });
});
