/**
 * A grpc-js server interceptor that sees every call whole — its requests, its responses, its status — and
 * reports it: the RPC counter and latency histogram by method and status code, and one `info` log line
 * per RewardService call with its rollout count, verdict counts and latency (health checks log at
 * `debug`: probes call every few seconds).
 *
 * An interceptor rather than code in the handlers: it also sees the calls the handlers never run (refused
 * by the token check, cancelled by the client), and the handlers stay about scoring. It must be the first
 * interceptor of the server's list (grpc-js wraps them in order, so the first sits next to the transport
 * and sees the statuses the others send).
 */
import {
  status as GrpcStatus,
  ResponderBuilder,
  ServerInterceptingCall,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
  ServerListenerBuilder,
} from "@grpc/grpc-js";
import { Verdict } from "../gen/minedit/v1/reward_pb.js";
import type { Logger } from "./logger.js";
import type { ServiceMetrics } from "./metrics.js";

/** Rollouts in a decoded request (ScoreBatchRequest or a ScoreStreamRequest); 0 for anything else. */
function rolloutsIn(decoded: unknown): number {
  if (typeof decoded !== "object" || decoded === null || !("ok" in decoded) || decoded.ok !== true) return 0;
  const message = (decoded as { message?: { rollouts?: unknown } }).message;
  return Array.isArray(message?.rollouts) ? message.rollouts.length : 0;
}

/** Verdicts in a response (ScoreBatchResponse.results or ScoreStreamResponse.result). */
function verdictsIn(response: unknown): number[] {
  if (typeof response !== "object" || response === null) return [];
  const { results, result } = response as {
    results?: { verdict?: unknown }[];
    result?: { verdict?: unknown };
  };
  const all = Array.isArray(results) ? results : result === undefined ? [] : [result];
  return all.flatMap((r) => (typeof r.verdict === "number" ? [r.verdict] : []));
}

export function callObserver(metrics: ServiceMetrics, logger: Logger): ServerInterceptor {
  return (methodDescriptor, call: ServerInterceptingCallInterface) => {
    const path = methodDescriptor.path;
    const method = path.slice(path.lastIndexOf("/") + 1);
    const isHealth = path.startsWith("/grpc.health.");
    const started = performance.now();
    let rollouts = 0;
    const verdicts: Record<string, number> = {};
    let ended = false;
    const end = (code: string, details: string | undefined): void => {
      if (ended) return;
      ended = true;
      const seconds = (performance.now() - started) / 1000;
      metrics.recordCall(method, code, seconds);
      const line = {
        method,
        code,
        rollouts,
        verdicts,
        latencyMs: Math.round(seconds * 10_000) / 10,
        peer: call.getPeer(),
        ...(code === "OK" || details === undefined ? {} : { details }),
      };
      if (isHealth) logger.debug(line, "call");
      else logger.info(line, "call");
    };
    const listener = new ServerListenerBuilder()
      .withOnReceiveMessage((message, next) => {
        rollouts += rolloutsIn(message);
        next(message);
      })
      .withOnCancel(() => end("CANCELLED", "cancelled by the client or its deadline"))
      .build();
    const responder = new ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendMessage((message, next) => {
        for (const verdict of verdictsIn(message)) {
          const name = Verdict[verdict] ?? String(verdict);
          verdicts[name] = (verdicts[name] ?? 0) + 1;
        }
        next(message);
      })
      .withSendStatus((status, next) => {
        end(GrpcStatus[status.code] ?? String(status.code), status.details);
        next(status);
      })
      .build();
    return new ServerInterceptingCall(call, responder);
  };
}
