/**
 * The request headers a load balancer routes calq calls on when the
 * calendars are split into shard groups (docs/operating.md, "Shard
 * groups"). The server names them in its CALENDAR_IN_OTHER_SHARD_GROUP
 * refusals; the gateway and `calq search` set them.
 */

/** The shard group of the calendars a call names: the balancer picks that group's replicas by it. */
export const SHARD_GROUP_HEADER = "x-calq-shard-group";

/** The calendars' shard key: the balancer hashes it (consistently) to keep one key on one replica of the group. */
export const SHARD_KEY_HEADER = "x-calq-shard-key";
