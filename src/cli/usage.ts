/**
 * The usage text of every `calq` command, in a module that imports nothing
 * heavy: `calq help` and `calq CMD --help` print it without loading the
 * command itself (the server, the gRPC client or the gateway). The flags of
 * search, busy and slots come from one table (request-flags.ts), which
 * reads their bounds from the contract's descriptors.
 */
import { settingsHelp } from "../config/server-config.js";
import { REGISTRY_FLAGS as R } from "./registry-flags.js";
import { CONNECTION_FLAGS, FLAGS, flagLines } from "./request-flags.js";

/** The usage text of `calq serve`; the settings part comes from the settings table itself. */
export const SERVE_USAGE = `usage: calq serve --data DIR [options]

  --data DIR                        folder with calq.yaml, or with *.ics files (then a dev token is needed)
  --dev-token T                     bearer token of principal "dev" when DIR has no calq.yaml (or CALQ_DEV_TOKEN)
  --print-config                    print the merged configuration, secrets redacted, and exit

${settingsHelp()}`;

/** The usage text of `calq search`. */
export const SEARCH_USAGE = `usage: calq search --calendar ID --start T --end-exclusive T --timezone ZONE --mode overlap|start-within [options]

${flagLines([
  FLAGS.searchCalendar,
  FLAGS.start,
  FLAGS.endExclusive,
  FLAGS.timezone,
  FLAGS.mode,
  FLAGS.searchLimit,
  FLAGS.cursor,
  FLAGS.text,
  FLAGS.all,
  FLAGS.json,
  ...CONNECTION_FLAGS,
])}`;

/** The usage text of `calq busy`. */
export const BUSY_USAGE = `usage: calq busy --calendar ID [--calendar ID ...] --start T --end-exclusive T --timezone ZONE [options]

${flagLines([FLAGS.busyCalendar, FLAGS.start, FLAGS.endExclusive, FLAGS.timezone, FLAGS.json, ...CONNECTION_FLAGS])}`;

/** The usage text of `calq slots`. */
export const SLOTS_USAGE = `usage: calq slots --calendar ID [--calendar ID ...] --start T --end-exclusive T --timezone ZONE
                  --duration MINUTES --tentative busy|free [options]

${flagLines([
  FLAGS.slotsCalendar,
  FLAGS.start,
  FLAGS.endExclusive,
  FLAGS.timezone,
  FLAGS.duration,
  FLAGS.tentative,
  FLAGS.step,
  FLAGS.workingHours,
  FLAGS.workingDays,
  FLAGS.slotsLimit,
  FLAGS.json,
  ...CONNECTION_FLAGS,
])}`;

/** The usage text of `calq meet`. */
export const MEET_USAGE = `usage: calq meet --required ID [--required ID ...] [--optional ID ...] --start T --end-exclusive T --timezone ZONE
                 --duration MINUTES --tentative busy|free [options]

${flagLines([
  FLAGS.meetRequired,
  FLAGS.meetOptional,
  FLAGS.start,
  FLAGS.endExclusive,
  FLAGS.timezone,
  FLAGS.meetDuration,
  FLAGS.tentative,
  FLAGS.meetStep,
  FLAGS.bufferBefore,
  FLAGS.bufferAfter,
  FLAGS.minOptional,
  FLAGS.meetWorkingHours,
  FLAGS.workingDays,
  FLAGS.meetLimit,
  FLAGS.json,
  ...CONNECTION_FLAGS,
])}`;

/** The usage text of `calq calendars`: the registry's calendars over the admin API (calendar.admin). */
export const CALENDARS_USAGE = `usage: calq calendars add ID (--file PATH | --url URL [--header NAME=VAR ...] | --caldav URL --credential-env VAR --credential-scheme basic|bearer) [options]
       calq calendars update ID [options: each one given replaces that field, the others are kept]
       calq calendars rm ID [--etag E]
       calq calendars ls [--prefix P] [--reader ID] [--group G] [--health H] [options]

${flagLines([
  R.file,
  R.url,
  R.header,
  R.caldav,
  R.credentialEnv,
  R.credentialScheme,
  R.name,
  R.timezone,
  R.refresh,
  R.reader,
  R.freeBusyReader,
  R.shardKey,
  R.updateEtag,
  R.prefix,
  R.listReader,
  R.group,
  R.health,
  R.pageSize,
  R.pageToken,
  R.all,
  R.json,
  ...CONNECTION_FLAGS,
])}`;

/** The usage text of `calq people`: people's settings in the registry over the admin API (calendar.admin). */
export const PEOPLE_USAGE = `usage: calq people set PRINCIPAL [options: the settings are replaced whole]

${flagLines([R.primary, R.personTimezone, R.workingHours, R.workingDays, R.weekStart, R.email, R.etag, R.json, ...CONNECTION_FLAGS])}`;

/** The usage text of `calq check`. */
export const CHECK_USAGE = `usage: calq check FILE.ics [--timezone ZONE] [--config calq.yaml]

  --timezone ZONE  the IANA zone calq.yaml would give the calendar (it overrides X-WR-TIMEZONE)
  --config FILE    read with the feed limits of this calq.yaml (feeds:), not the defaults`;

/** The gateway's part of `calq help`. */
export const GATEWAY_USAGE = `usage: calq tools --format openai|anthropic|mcp
       calq mcp [--service URL] [--tls-ca FILE] [--http PORT [--host H] [--allow-plaintext-non-loopback] [--allow-origin O ...]]

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
                   serve --http on a non-loopback --host anyway: a proxy in front terminates TLS
  --allow-origin O with --http, let web pages of origin O (https://app.example) call; repeat it for several
                   (or CALQ_MCP_ALLOWED_ORIGINS, comma separated). A request naming any other Origin
                   gets 403; one without Origin (not from a browser) is served`;
