/**
 * Typed arrays on shared memory. A snapshot's arrays are read by the main
 * thread, which serves it, and by the ingest worker that builds the
 * calendar's next snapshot from it: shared, they cross to that worker
 * without a copy, and neither side ever writes to them once built
 * (docs/decisions.md, "Rebuilds in proportion to the change").
 */

/** A Float64Array of `length` zeros on memory of its own that threads share. */
export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(8 * length));
}

/** A Uint32Array of `length` zeros on shared memory. */
export function sharedUint32(length: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * length));
}

/** An Int32Array of `length` zeros on shared memory. */
export function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * length));
}

/** A Uint8Array of `length` zeros on shared memory. */
export function sharedUint8(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}
