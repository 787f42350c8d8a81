/**
 * What the contract declares beyond types, for every layer to read: the
 * bounds of request fields (proto/calq/v1/reasons.proto), the check of
 * a request against them, and the words that state them. A leaf: it reads
 * gen/'s descriptors and calq's error type, nothing else.
 */
export { type BoundNumbers, countRange, describeBounds, valueRange, zeroClause } from "./bounds-text.js";
export { checkBounds } from "./check-bounds.js";
export { type BoundName, boundedFields, type DeclaredBounds, declaredBound, declaredBounds } from "./field-bounds.js";
