/**
 * Search by words over gRPC (SearchEventsRequest.text_query): case and
 * diacritics do not matter, Vietnamese included; every word must occur in
 * the summary, location or description; the words filter within the window
 * and mode, page with their cursor, and are refused when unusable.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMode } from "../../gen/calq/v1/calendar_service_pb.js";
import { ics, vevent } from "../support/feeds.js";
import { CalqGrpcClient, failureOf } from "../support/grpc-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let served: TestServer;
let client: CalqGrpcClient;

beforeAll(async () => {
  served = await startTestServer({
    calendars: {
      work: ics(
        "X-WR-TIMEZONE:Asia/Ho_Chi_Minh",
        ...vevent(
          "UID:giao-ban",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T090000",
          "DURATION:PT1H",
          "SUMMARY:Họp giao ban",
          "LOCATION:Phòng Đà Lạt",
        ),
        ...vevent(
          "UID:dang-ky",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T100000",
          "DURATION:PT30M",
          "SUMMARY:Đăng ký khóa học",
          "DESCRIPTION:Link: https://zoom.example/j/123",
        ),
        ...vevent("UID:lunch", "DTSTART;TZID=Asia/Ho_Chi_Minh:20261002T120000", "DURATION:PT1H", "SUMMARY:Lunch with Binh"),
        // A weekly series with no end: far windows are expanded on demand, and filtered there too.
        ...vevent(
          "UID:hop-tuan",
          "DTSTART;TZID=Asia/Ho_Chi_Minh:20261005T080000",
          "DURATION:PT1H",
          "RRULE:FREQ=WEEKLY",
          "SUMMARY:Họp tuần",
        ),
      ),
    },
    config: {
      calendars: [{ id: "work", source: "work.ics", readers: ["an"] }],
      principals: [{ id: "an", primary: "work", tokens: ["token-an"] }],
    },
  });
  client = new CalqGrpcClient(served.address, "token-an");
});

afterAll(async () => {
  client.close();
  await served.close();
});

const october = (textQuery: string, start = "2026-10-01", endExclusive = "2026-11-01") => ({
  calendarId: "primary",
  start,
  endExclusive,
  timezone: "Asia/Ho_Chi_Minh",
  matchMode: MatchMode.OVERLAP,
  limit: 100,
  textQuery,
});

const summaries = async (textQuery: string, start?: string, endExclusive?: string) =>
  (await client.searchEvents(october(textQuery, start, endExclusive))).events.map((event) => event.summary);

describe("SearchEvents with text_query", () => {
  it('finds Vietnamese text without its marks: "hop" finds "Họp", "dang ky" finds "Đăng ký"', async () => {
    expect(await summaries("hop")).toEqual(["Họp giao ban", "Họp tuần", "Họp tuần", "Họp tuần", "Họp tuần"]);
    expect(await summaries("dang ky")).toEqual(["Đăng ký khóa học"]);
    expect(await summaries("HỌP GIAO")).toEqual(["Họp giao ban"]);
  });

  it("needs every word, each in the summary, the location or the description", async () => {
    expect(await summaries("giao ban da lat")).toEqual(["Họp giao ban"]);
    expect(await summaries("zoom")).toEqual(["Đăng ký khóa học"]);
    expect(await summaries("giao zoom")).toEqual([]);
  });

  it("filters series expanded on demand far from the load, and echoes the words as compared", async () => {
    const response = await client.searchEvents(october("Họp  TUẦN!", "2150-01-01", "2150-01-15"));
    expect(response.events.map((event) => event.summary)).toEqual(["Họp tuần", "Họp tuần"]);
    expect(response.query?.textQueryWords).toEqual(["hop", "tuan"]);
  });

  it("pages with its cursor, and refuses the cursor with other words", async () => {
    const first = await client.searchEvents({ ...october("hop"), limit: 2 });
    expect(first.events).toHaveLength(2);
    const second = await client.searchEvents({ ...october("hop"), limit: 10, cursor: first.nextCursor });
    expect([...first.events, ...second.events].map((event) => event.summary)).toEqual(await summaries("hop"));
    const failure = await failureOf(client.searchEvents({ ...october("giao"), cursor: first.nextCursor }));
    expect(failure.errorInfo?.reason).toBe("INVALID_CURSOR");
  });

  it("refuses a query without a letter or digit, or with too many words, naming text_query", async () => {
    for (const textQuery of ["?!", "a b c d e f g h i j k", "x".repeat(201)]) {
      const failure = await failureOf(client.searchEvents(october(textQuery)));
      expect(failure.errorInfo?.reason, textQuery).toBe("INVALID_TEXT_QUERY");
      expect(failure.badRequest?.fieldViolations[0].field).toBe("text_query");
    }
  });
});
