/**
 * The client half of shard groups (docs/operating.md, "Shard groups"): a
 * connect interceptor that sets the routing headers on calls that name
 * calendars, so the load balancer sends them to the group that holds them.
 *
 * It learns each calendar's group and shard key from ListCalendars answers
 * and from CALENDAR_IN_OTHER_SHARD_GROUP refusals. A call refused that way
 * is sent once more, with the headers the refusal names; a second refusal
 * is the caller's answer, so a balancer that ignores the headers shows up
 * as a clear error instead of a loop. The gateway and `calq search` use it;
 * against a deployment without groups it never sets a header.
 */
import { hash } from "node:crypto";
import { ConnectError, type Interceptor, type UnaryRequest } from "@connectrpc/connect";
import { type ListCalendarsResponse, ListCalendarsResponseSchema } from "../../gen/calq/v1/calendar_service_pb.js";
import { SHARD_GROUP_HEADER, SHARD_KEY_HEADER } from "../config/shard-headers.js";
import { calqErrorInfo } from "./status.js";

/** Where the calendars of a call live. */
interface ShardRoute {
  readonly group: string;
  readonly key: string;
}

/** Routes remembered at most; the oldest is forgotten first. A calendar forgotten costs one refusal to learn again. */
const MAX_ROUTES = 10_000;

/**
 * An interceptor that keeps its own memory of routes: create one per
 * client. Routes are remembered per caller (by a digest of the
 * authorization header): "primary" names another calendar for each caller,
 * and a route learnt from one caller's answers, used for another caller's
 * call, would send a calendar that caller may not read to its group, where
 * the group's health (an UNAVAILABLE instead of CALENDAR_NOT_ACCESSIBLE)
 * would tell that caller it exists.
 */
export function shardRouting(): Interceptor {
  const routes = new Map<string, ShardRoute>();
  const remember = (name: string, route: ShardRoute) => {
    routes.delete(name);
    routes.set(name, route);
    if (routes.size > MAX_ROUTES) routes.delete(routes.keys().next().value!);
  };

  return (next) => async (request) => {
    if (request.stream) return next(request);
    const caller = callerOf(request.header);
    const names = calendarIdsOf(request).map((id) => routeName(caller, id));
    const known = names.map((name) => routes.get(name));
    const route = known[0];
    if (route !== undefined && known.every((other) => other?.group === route.group)) setHeaders(request, route);
    try {
      const response = await next(request);
      if (!response.stream && response.method.output.typeName === ListCalendarsResponseSchema.typeName) {
        learnFromList(response.message as ListCalendarsResponse, caller, remember);
      }
      return response;
    } catch (error) {
      const info = calqErrorInfo(ConnectError.from(error));
      if (info?.reason !== "CALENDAR_IN_OTHER_SHARD_GROUP" || names.length === 0) throw error;
      const refused = { group: info.metadata.shard_group ?? "", key: info.metadata.shard_key ?? "" };
      for (const name of names) remember(name, refused);
      // Already sent there: the balancer did not route on the header. Say so rather than loop.
      if (request.header.get(SHARD_GROUP_HEADER) === refused.group) throw error;
      setHeaders(request, refused);
      return next(request);
    }
  };
}

/** The calendar ids a request names: its `calendar_id`, or its `calendar_ids`. */
function calendarIdsOf(request: UnaryRequest): string[] {
  const message = request.message as Record<string, unknown>;
  const ids: string[] = [];
  for (const field of request.method.input.fields) {
    const value = message[field.localName];
    if (field.name === "calendar_id" && typeof value === "string" && value !== "") ids.push(value);
    if (field.name === "calendar_ids" && Array.isArray(value)) ids.push(...value.filter((id): id is string => typeof id === "string"));
  }
  return ids;
}

/** The caller, as a digest of its credentials: routes are remembered per caller. */
function callerOf(header: Headers): string {
  return hash("sha256", header.get("authorization") ?? "", "base64url");
}

/** What a calendar's route is remembered under: the caller and the id as the caller names it ("primary" included). */
function routeName(caller: string, calendarId: string): string {
  return `${caller} ${calendarId}`;
}

function setHeaders(request: UnaryRequest, route: ShardRoute): void {
  request.header.set(SHARD_GROUP_HEADER, route.group);
  if (route.key !== "") request.header.set(SHARD_KEY_HEADER, route.key);
}

/** Every calendar ListCalendars gives with a group, and the caller's "primary" among them. */
function learnFromList(list: ListCalendarsResponse, caller: string, remember: (name: string, route: ShardRoute) => void): void {
  for (const calendar of list.calendars) {
    if (calendar.shardGroup === "") continue;
    const route = { group: calendar.shardGroup, key: calendar.shardKey };
    remember(routeName(caller, calendar.id), route);
    if (calendar.primary) remember(routeName(caller, "primary"), route);
  }
}
