import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CalendarService } from "../../gen/calq/v1/calendar_service_pb.js";
import { createCalqClient } from "../../src/gateway/calq-client.js";
import { ToolExecutor } from "../../src/gateway/execute.js";
import { buildToolCatalog } from "../../src/gateway/tool-schemas.js";
import { startTestServer } from "../support/test-server.js";

/**
 * A service that is not calq but speaks its protocol, failing the way a
 * proxy or a broken deployment would: errors without calq's ErrorInfo, in
 * words the model must not see.
 */
let impostor: Http2Server;
let impostorUrl: string;
const sessions = new Set<ServerHttp2Session>();
const SECRET_WORDS = "upstream feed https://secret.example/private.ics failed at /srv/calq/data";

beforeAll(async () => {
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(CalendarService, {
        listCalendars() {
          throw new ConnectError(SECRET_WORDS, Code.Internal);
        },
        getCallerContext() {
          throw new ConnectError(SECRET_WORDS, Code.PermissionDenied);
        },
      }),
  });
  impostor = createServer(handler);
  impostor.on("session", (session) => sessions.add(session));
  await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve));
  impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // The gateway's client keeps its HTTP/2 session open; close() would wait for it.
  for (const session of sessions) session.destroy();
  await new Promise<void>((resolve) => impostor.close(() => resolve()));
});

function executorFor(url: string) {
  const logged: Record<string, unknown>[] = [];
  const executor = new ToolExecutor(buildToolCatalog(), createCalqClient(url), (record) => logged.push(record));
  return { executor, logged };
}

describe("what the gateway passes on from a failed call", () => {
  it("gives only a bare code when a failure carries no calq reason, and logs the words instead", async () => {
    const { executor, logged } = executorFor(impostorUrl);
    for (const name of ["list_calendars", "get_user_context"]) {
      const result = await executor.call(executor.tool(name)!, {}, "token");
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toBe(
        'internal: the call failed\nWhat to do: Retry later; if it persists, give the user metadata "correlation_id".',
      );
    }
    expect(JSON.stringify(logged)).toContain("secret.example");
  });

  it("says the service could not be reached, without its address", async () => {
    const { executor, logged } = executorFor("http://127.0.0.1:1");
    const result = await executor.call(executor.tool("list_calendars")!, {}, "token");
    expect(result.content[0].text).toBe("service_unavailable: the calendar service could not be reached\nWhat to do: retry later.");
    expect(logged[0]).toMatchObject({ tool: "list_calendars", code: "Unavailable" });
  });

  it("says the service is busy, and to retry after a wait, when calq answers RESOURCE_EXHAUSTED", async () => {
    // calq's request-size limit, set below any search request, refuses with RESOURCE_EXHAUSTED as its concurrency limit does.
    const served = await startTestServer({
      calendars: { work: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calq//test//EN\r\nEND:VCALENDAR\r\n" },
      config: { calendars: [{ id: "work", source: "work.ics", readers: ["an"] }], principals: [{ id: "an", tokens: ["an-token"] }] },
      serve: { maxRequestBytes: 8 },
    });
    try {
      const { executor, logged } = executorFor(served.baseUrl);
      const args = {
        calendar_id: "work",
        start: "2026-10-02",
        end_exclusive: "2026-10-03",
        timezone: "Asia/Ho_Chi_Minh",
        match_mode: "overlap",
        limit: null,
        cursor: null,
        text_query: null,
        status: null,
        transparency: null,
        my_participation: null,
        categories: null,
      };
      const result = await executor.call(executor.tool("search_calendar_events")!, args, "an-token");
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toBe("service_overloaded: the calendar service is busy\nWhat to do: retry shortly.");
      expect(logged[0]).toMatchObject({ tool: "search_calendar_events", code: "ResourceExhausted" });
    } finally {
      await served.close();
    }
  });

  it("refuses arguments the schema refuses without calling the service", async () => {
    const { executor, logged } = executorFor("http://127.0.0.1:1");
    const result = await executor.call(executor.tool("get_user_context")!, { principal_id: "binh" }, "token");
    expect(result.content[0].text).toContain("invalid_arguments: `principal_id`: not allowed");
    expect(logged).toEqual([]);
  });
});
