/** A usage mistake on the command line: `calq` prints the message and the usage, and exits 2. */
export class UsageError extends Error {}
