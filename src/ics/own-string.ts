/**
 * Values kept from a feed, as strings of their own. ical.js hands out values
 * as slices of the text it read, and V8 shares a slice's characters with its
 * parent (for 13 characters and more), so one kept value holds the whole
 * text it came from. calq types 64 components per ical.js call: without
 * this, the UIDs alone would keep every call's text, the feed's size again,
 * for as long as the events are held.
 */

/** Slices shorter than this are copies already. */
const SHARED_FROM = 13;

/** `text` in a string that holds no other. */
export function ownString(text: string): string {
  // Concatenation makes a new string; slicing it flattens that into fresh characters.
  return text.length < SHARED_FROM ? text : ` ${text}`.slice(1);
}
