/**
 * The caps on what one feed can make calq hold while reading it, each in
 * one place (docs/imperfect-feeds.md, "Bounds"). A feed's byte size and its
 * VEVENT count are capped by the configuration; these cap what a few bytes
 * can multiply into: values listed in one event, transitions listed in one
 * VTIMEZONE, nesting, properties, and the diagnostics that report them.
 *
 * Each is far above the shapes real producers write (test/fixtures/producers:
 * a few EXDATEs per series, components three deep; a VTIMEZONE that lists
 * a zone's whole history one RDATE per change, as python-icalendar writes
 * it, holds a few hundred), so a real feed never meets one; a feed that
 * does is cut or refused by the feed lexer before ical.js builds anything
 * from what the cap leaves out.
 */

/** RDATE values one VEVENT may list; later ones are left out (RDATES_CAPPED). */
export const MAX_RDATES_PER_EVENT = 10_000;

/**
 * EXDATE values one VEVENT may list; an event with more is left out
 * (EXDATES_CAPPED): dropping exclusions would serve dates the feed excludes.
 */
export const MAX_EXDATES_PER_EVENT = 10_000;

/**
 * Transitions one VTIMEZONE may list: each observance's DTSTART, each RDATE
 * value and each instance a COUNT rule makes. A VTIMEZONE with more is not
 * used (TIMEZONE_TRANSITIONS_CAPPED): its TZID is read as if it were absent.
 */
export const MAX_TIMEZONE_TRANSITIONS = 2_000;

/**
 * How deep components may nest, the VCALENDAR counted (VCALENDAR, VEVENT,
 * VALARM is 3). A component deeper than this is left out with everything in
 * it (NESTING_CAPPED); the component it stands in is kept.
 */
export const MAX_COMPONENT_DEPTH = 10;

/**
 * Properties one component may hold, those of its nested components (its
 * VALARMs) included, its RDATE and EXDATE values apart (they have their own
 * caps). A VEVENT or VTIMEZONE with more is left out; the VCALENDAR's own
 * properties past it are ignored (PROPERTIES_CAPPED).
 */
export const MAX_PROPERTIES_PER_COMPONENT = 10_000;

/**
 * Diagnostics of one code kept from reading one feed; past it, one more of
 * that code says how many were not listed, so a feed of a million slips
 * reports a thousand and a count, not a million.
 */
export const MAX_DIAGNOSTICS_PER_CODE = 1_000;
