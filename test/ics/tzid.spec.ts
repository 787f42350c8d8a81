/**
 * TZIDs as producers write them without a VTIMEZONE (docs/imperfect-feeds.md, the TZID rows): which
 * forms resolve to which IANA zone, and which do not resolve at all.
 */
import { describe, expect, it } from "vitest";
import { producerTzid } from "../../src/ics/tzid.js";

describe("a producer's TZID", () => {
  it.each([
    ["/mozilla.org/20070129_1/America/New_York", "America/New_York"],
    ["/mozilla.org/20050126_1/America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"],
    ["/freeassociation.sourceforge.net/Tzfile/Europe/London", "Europe/London"],
    ["/freeassociation.sourceforge.net/Europe/Berlin", "Europe/Berlin"],
    ["/softwarestudio.org/Olson_20011030_5/Asia/Tokyo", "Asia/Tokyo"],
    ["(UTC-05:00) Eastern Time (US & Canada)", "America/New_York"],
    ["(UTC-08:00) Pacific Time (US & Canada)", "America/Los_Angeles"],
    ["(UTC-04:00) Atlantic Time (Canada)", "America/Halifax"],
    ['"(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna"', "Europe/Amsterdam"],
    ["(UTC+07:00) Bangkok, Hanoi, Jakarta", "Asia/Bangkok"],
    ["(GMT+10:00) Canberra, Melbourne, Sydney", "Australia/Melbourne"],
    ["(UTC) Coordinated Universal Time", "UTC"],
    ["Eastern Time (US & Canada)", "America/New_York"],
  ])("%s is read as %s", (tzid, zone) => {
    expect(producerTzid(tzid)?.zone.name).toBe(zone);
  });

  it.each(["Customized Time Zone", "/mozilla.org/20070129_1/Nowhere/Special", "(UTC+05:45) Nowhere, Elsewhere", "Berlin"])(
    "%s names no zone",
    (tzid) => {
      expect(producerTzid(tzid)).toBeUndefined();
    },
  );
});
