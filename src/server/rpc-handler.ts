/**
 * The Node request handler of the service port, in place of connect's own
 * adapter, for what has to be decided at the HTTP layer, before connect
 * reads a body:
 *
 * - how large a body may be: feed-sized only for a call to the admin
 *   service whose credentials, checked from its headers alone, belong to a
 *   holder of calendar.admin, and only while fewer than `maxLargeBodies`
 *   such bodies are being received; everyone else gets the small limit, so
 *   a made-up token cannot make the server buffer 60 MB;
 * - how long a request body may take, for calls whose request is a single
 *   message (unary and server-streaming);
 * - when a call starts: a few per turn of the event loop, connections
 *   taking turns (fair-start.ts), so one connection's burst of streams does
 *   not hold another's call;
 * - how a call refused by the protocol layer ended (over the limit, not
 *   parseable, wrong content type, cut by its client), since calq's
 *   interceptors never see those: each gets its RPC log line and metric,
 *   and a body that does not parse is INVALID_ARGUMENT with a correlation
 *   id, not INTERNAL.
 */
import { randomUUID } from "node:crypto";
import type http from "node:http";
import http2 from "node:http2";
import { performance } from "node:perf_hooks";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type ContextValues,
  createConnectRouter,
  createContextKey,
  type HandlerContext,
  type Interceptor,
} from "@connectrpc/connect";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import {
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from "@connectrpc/connect-node";
import { codeName } from "../rpc/status.js";
import { ARRIVED_AT, CALL_INFO, CONNECTION } from "./call-info.js";
import type { CallListener, CallOutcome } from "./call-observer.js";
import { callCutShort, malformedRequestError } from "./errors.js";
import { FairStart } from "./fair-start.js";
import { settleOutcome } from "./protocol-outcome.js";

type NodeRequest = http.IncomingMessage | http2.Http2ServerRequest;
type NodeResponse = http.ServerResponse | http2.Http2ServerResponse;

/** When a call's headers arrived, and whether its response has closed since (the client left). */
interface Arrival {
  readonly at: number;
  left: boolean;
}

/** Why a request got the body limit it got. */
type Allowance = "small" | "admin" | "large_bodies_busy";

/** The body limit a request was given, and why, for the refusal's words. */
interface Admission {
  readonly maxBytes: number;
  readonly allowance: Allowance;
}

const ADMISSION = createContextKey<Admission | undefined>(undefined, { description: "calq body admission" });

export interface RpcHandlerOptions {
  readonly routes: (router: ConnectRouter) => void;
  readonly interceptors: Interceptor[];
  readonly contextValues: (request: NodeRequest) => ContextValues;
  /** The body limit of every call but a verified admin's. */
  readonly maxRequestBytes: number;
  /** The body limit of an admin-service call from a verified calendar.admin caller. */
  readonly maxLargeRequestBytes: number;
  /** Feed-sized bodies received at once; past it, admins too get the small limit until one ends. */
  readonly maxLargeBodies: number;
  /** The service whose calls may bring feed-sized bodies. */
  readonly largeBodyService: string;
  /** Whether the request's credentials, read from its headers alone, belong to a calendar.admin holder. */
  readonly isVerifiedAdmin: (request: NodeRequest) => Promise<boolean>;
  /** A single-message request's body must be complete within this of its headers. */
  readonly requestTimeoutMs: number;
  /** Told how each call the interceptors never saw ended. */
  readonly listeners: readonly CallListener[];
}

/** A Node request handler (HTTP/1.1 and HTTP/2) serving the routes with those HTTP-layer decisions. */
export function rpcHandler(options: RpcHandlerOptions): (request: NodeRequest, response: NodeResponse) => void {
  const paths = (readMaxBytes: number) => {
    const router = createConnectRouter({
      interceptors: options.interceptors,
      readMaxBytes,
      acceptCompression: [compressionGzip, compressionBrotli],
      requestGate: refuseDeclaredOversize,
    });
    options.routes(router);
    return new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  };
  const small = paths(options.maxRequestBytes);
  const large = paths(options.maxLargeRequestBytes);
  const largePrefix = `/${options.largeBodyService}/`;
  let largeInFlight = 0;

  /**
   * Chooses the handler and limit; a feed-sized allowance holds a place until
   * the response closes (so never for one that has closed already).
   */
  async function admit(
    path: string,
    request: NodeRequest,
    response: NodeResponse,
    arrival: Arrival,
  ): Promise<[UniversalHandler, Admission]> {
    const handler = small.get(path)!;
    const smallAdmission: Admission = { maxBytes: options.maxRequestBytes, allowance: "small" };
    if (!path.startsWith(largePrefix) || !(await options.isVerifiedAdmin(request)) || arrival.left) return [handler, smallAdmission];
    if (largeInFlight >= options.maxLargeBodies) return [handler, { ...smallAdmission, allowance: "large_bodies_busy" }];
    largeInFlight++;
    response.once("close", () => largeInFlight--);
    return [large.get(path)!, { maxBytes: options.maxLargeRequestBytes, allowance: "admin" }];
  }

  /** Serves a call once its turn to start has come (fair-start.ts); its log line and metric count the wait. */
  async function serve(request: NodeRequest, response: NodeResponse, arrival: Arrival): Promise<void> {
    const path = request.url?.split("?", 2)[0] ?? "";
    if (!small.has(path)) {
      response.writeHead(404).end();
      return;
    }
    const started = arrival.at;
    const [handler, admission] = await admit(path, request, response, arrival);
    const values = options.contextValues(request);
    values.set(ADMISSION, admission);
    values.set(CONNECTION, connectionOf(request));
    values.set(ARRIVED_AT, started);
    const correlationId = randomUUID();

    let reported = false;
    /** One outcome per call: the interceptors report the calls they saw, this the others. */
    const report = (error: ConnectError | undefined) => {
      if (reported || values.get(CALL_INFO) !== undefined) return;
      reported = true;
      const outcome: CallOutcome = {
        service: handler.service.typeName,
        method: handler.method.name,
        code: codeName(error?.code),
        durationMs: performance.now() - started,
        correlationId,
      };
      for (const listener of options.listeners) listener(outcome);
    };
    if (arrival.left) {
      // Reset while it waited to start (or to be admitted): nothing of it will ever arrive, or be read.
      report(new ConnectError("the client left before its call started", Code.Canceled));
      return;
    }

    let timedOut = false;
    const kind = handler.method.methodKind;
    // Counted from the headers' arrival, not from the call's start.
    const bodyTimer =
      kind === "unary" || kind === "server_streaming"
        ? setTimeout(
            () => {
              timedOut = true;
              cutRequest(request);
            },
            Math.max(0, options.requestTimeoutMs - (performance.now() - started)),
          )
        : undefined;
    const stopTimer = () => clearTimeout(bodyTimer);
    request.once("end", stopTimer);
    response.once("close", stopTimer);

    const lateBody = () => new ConnectError(`the request body did not arrive within ${options.requestTimeoutMs} ms`, Code.DeadlineExceeded);
    const universalRequest = universalRequestFromNodeRequest(request, response, undefined, values);
    try {
      const universal = await handler(universalRequest);
      if (!("stream" in request) && !request.complete && values.get(CALL_INFO) === undefined) {
        // Refused before its body was read: connect would read up to 256 KiB more to keep the
        // connection, at the client's pace. HTTP/1.1 cannot stop one request, so the connection ends.
        universal.header = new Headers(universal.header);
        universal.header.set("connection", "close");
      }
      const settled = settleOutcome(universal, (error) => {
        if (values.get(CALL_INFO) !== undefined) return undefined;
        const sent = refusalToSend(error, admission, correlationId);
        // Reported once the exchange is over: a client that reset its stream mid-body shows up
        // to connect first as a body cut short, and only then as the reset it was.
        response.once("close", () => {
          if (timedOut) report(lateBody());
          else if (clientLeft(request, response)) report(callCutShort(universalRequest.signal.reason));
          else report(sent);
        });
        return sent === error ? undefined : sent;
      });
      await universalResponseToNodeResponse(settled, response);
    } catch (reason) {
      report(timedOut ? lateBody() : callCutShort(reason));
    } finally {
      stopTimer();
    }
  }

  const starting = new FairStart<[NodeRequest, NodeResponse, Arrival]>(([request, response, arrival]) => {
    void serve(request, response, arrival).catch(() => {
      // serve() reports its own failures; this is a write to a connection already gone.
      if (!response.headersSent) response.destroy();
    });
  });
  return (request, response) => {
    const arrival: Arrival = { at: performance.now(), left: false };
    response.once("close", () => {
      arrival.left = true;
    });
    // A stream whose session is already gone takes a turn of its own.
    starting.add(connectionOf(request) ?? request, [request, response, arrival]);
  };
}

/**
 * The status a protocol-layer refusal is sent with. Before calq's code is
 * reached, connect has only read and parsed the request: an INTERNAL there is
 * a body that does not parse (connect calls bad protobuf INTERNAL), and an
 * over-limit body is told why the limit was the small one.
 */
function refusalToSend(error: ConnectError | undefined, admission: Admission, correlationId: string): ConnectError | undefined {
  if (error === undefined) return undefined;
  switch (error.code) {
    case Code.Internal:
    case Code.InvalidArgument:
      return malformedRequestError(error, correlationId);
    case Code.ResourceExhausted:
      return tooLarge(admission, error);
    default:
      return error;
  }
}

/** Refuses, before any of the body is read, a request whose Content-Length is over its limit. */
function refuseDeclaredOversize(context: HandlerContext): void {
  const admission = context.values.get(ADMISSION);
  const declared = Number(context.requestHeader.get("content-length") ?? Number.NaN);
  if (admission !== undefined && declared > admission.maxBytes) {
    throw tooLarge(admission, new ConnectError(`the request body of ${declared} bytes`, Code.ResourceExhausted));
  }
}

function tooLarge(admission: Admission, cause: ConnectError): ConnectError {
  switch (admission.allowance) {
    case "small":
      return new ConnectError(
        `the request is over the ${admission.maxBytes}-byte limit; only a caller whose credentials hold calendar.admin may send a feed-sized ImportCalendar`,
        Code.ResourceExhausted,
        undefined,
        undefined,
        cause,
      );
    case "large_bodies_busy":
      return new ConnectError(
        "as many feed-sized uploads as the server takes at once are being received; retry with backoff",
        Code.ResourceExhausted,
        undefined,
        undefined,
        cause,
      );
    case "admin":
      return new ConnectError(
        `the request is over the ${admission.maxBytes}-byte limit`,
        Code.ResourceExhausted,
        undefined,
        undefined,
        cause,
      );
  }
}

/** The connection a request came on: its HTTP/2 session (undefined once gone), or its socket. */
function connectionOf(request: NodeRequest): object | undefined {
  return "stream" in request ? request.stream.session : request.socket;
}

/** Whether the client went away before the response was complete: reset its stream (HTTP/2) or closed its connection (HTTP/1.1). */
function clientLeft(request: NodeRequest, response: NodeResponse): boolean {
  if ("stream" in request) return (request.stream.rstCode ?? http2.constants.NGHTTP2_NO_ERROR) !== http2.constants.NGHTTP2_NO_ERROR;
  return !response.writableFinished;
}

/** Stops a request whose body is late: HTTP/2 resets just its stream (CANCEL), HTTP/1.1 has only the connection to close. */
function cutRequest(request: NodeRequest): void {
  if ("stream" in request) request.stream.close(http2.constants.NGHTTP2_CANCEL);
  else request.socket.destroy();
}
