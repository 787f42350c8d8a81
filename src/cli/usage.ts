/**
 * The usage text of every `calq` command, in a module that imports nothing
 * heavy: `calq help` and `calq CMD --help` print it without loading the
 * command itself (the server, the gRPC client or the gateway).
 */
import { settingsHelp } from "../config/server-config.js";

/** The usage text of `calq serve`; the settings part comes from the settings table itself. */
export const SERVE_USAGE = `usage: calq serve --data DIR [options]

  --data DIR                        folder with calq.yaml, or with *.ics files (then a dev token is needed)
  --dev-token T                     bearer token of principal "dev" when DIR has no calq.yaml (or CALQ_DEV_TOKEN)
  --print-config                    print the merged configuration, secrets redacted, and exit

${settingsHelp()}`;

/** How every command that calls a running server reaches it (service-client.ts). */
const CONNECTION_USAGE = `  --address HOST:PORT   server address (or CALQ_ADDRESS; default 127.0.0.1:50051)
  --token T             bearer token (or CALQ_TOKEN)
  --tls-ca FILE         connect with TLS, trusting this CA (or CALQ_TLS_CA)`;

/** The calendars and the window of `calq busy` and `calq slots`, as QueryFreeBusy and FindFreeSlots read them. */
const CALENDARS_AND_WINDOW_USAGE = `  --calendar ID         a calendar id, or "primary" for your own; give it up to 50 times to search
                        several calendars merged in start order, with a CALENDAR column; repeat it for several (up to 50)
  --start T             first instant, included: 2026-10-02T09:00 (read in --timezone), 2026-10-02, or with an offset
  --end-exclusive T     first instant after the window, same forms
  --timezone ZONE       IANA zone the window is read in and times are shown in (Asia/Ho_Chi_Minh)`;

/** The usage text of `calq search`. */
export const SEARCH_USAGE = `usage: calq search --calendar ID --start T --end-exclusive T --timezone ZONE --mode overlap|start-within [options]

  --calendar ID         a calendar id, or "primary" for your own; give it up to 50 times to search
                        several calendars merged in start order, with a CALENDAR column
  --start T             first instant, included: 2026-10-02T09:00 (read in --timezone), 2026-10-02, or with an offset
  --end-exclusive T     first instant after the window, same forms
  --timezone ZONE       IANA zone the window is read in and times are shown in (Asia/Ho_Chi_Minh)
  --mode M              overlap (anything sharing time with the window) or start-within (starting in it)
  --limit N             events per page, 1 to 100 (default 20)
  --cursor C            continue from a page's cursor
  --text WORDS          only events holding every word (summary, location or description; case and accents ignored)
  --all                 follow cursors to the last page
  --json                print the responses as JSON instead of a table
${CONNECTION_USAGE}`;

/** The usage text of `calq busy`. */
export const BUSY_USAGE = `usage: calq busy --calendar ID [--calendar ID ...] --start T --end-exclusive T --timezone ZONE [options]

${CALENDARS_AND_WINDOW_USAGE}
  --json                print the response as JSON instead of tables
${CONNECTION_USAGE}`;

/** The usage text of `calq slots`. */
export const SLOTS_USAGE = `usage: calq slots --calendar ID [--calendar ID ...] --start T --end-exclusive T --timezone ZONE
                  --duration MINUTES --tentative busy|free [options]

${CALENDARS_AND_WINDOW_USAGE}
  --duration MINUTES    length of each slot, 5 to 1440 minutes (exact, also across a DST change)
  --tentative P         busy (tentative events block their time) or free (they do not); there is no default
  --step MINUTES        slots start at local multiples of this from midnight, 5 to 1440 (default 30)
  --working-hours FROM-TO
                        only slots within local working hours on working days, as 09:00-17:00 (24:00 ends the day)
  --working-days DAYS   the working weekdays, 1 Monday to 7 Sunday: 1-5 (the default), 1,3,5 or 1-3,6
  --limit N             slots at most, 1 to 50 (default 10)
  --json                print the response as JSON instead of a table
${CONNECTION_USAGE}`;

/** The usage text of `calq check`. */
export const CHECK_USAGE = `usage: calq check FILE.ics [--timezone ZONE] [--config calq.yaml]

  --timezone ZONE  the IANA zone calq.yaml would give the calendar (it overrides X-WR-TIMEZONE)
  --config FILE    read with the feed limits of this calq.yaml (feeds:), not the defaults`;

/** The gateway's part of `calq help`. */
export const GATEWAY_USAGE = `usage: calq tools --format openai|anthropic|mcp
       calq mcp [--service URL] [--tls-ca FILE] [--http PORT [--host H] [--allow-plaintext-non-loopback]]

  --format F       print the calq tools as OpenAI function tools (strict), Anthropic tools or MCP tools
  --service URL    the calq service to call (default $CALQ_SERVICE_URL, else http://127.0.0.1:50051);
                   https:// trusts the system's CAs, or --tls-ca
  --tls-ca FILE    trust this CA (PEM) for an https:// service (or CALQ_TLS_CA)
  --http PORT      serve MCP over Streamable HTTP at http://H:PORT/mcp (0 picks a free port);
                   each request's bearer token is forwarded to calq as the caller's
                   without --http: MCP over stdio, as the caller whose token is in CALQ_TOKEN
  --host H         address to bind with --http (default 127.0.0.1); an address other
                   machines can reach is refused, since requests carry bearer tokens
  --allow-plaintext-non-loopback
                   serve --http on a non-loopback --host anyway: a proxy in front terminates TLS`;
