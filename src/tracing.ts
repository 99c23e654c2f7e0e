import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { TracingConfig } from "./config.ts";
import type { Logger } from "./log.ts";

/**
 * OpenTelemetry traces (docs/operations.md, "Traces"): one trace per question, a span for each
 * state of its life (src/bridge/question-life.ts) and, inside it, the backend call, the
 * platform calls and the store calls. Attributes are ids, names, counts and outcomes: never a
 * text, a secret or a lead's data.
 *
 * Off (no OTEL_EXPORTER_OTLP_ENDPOINT), nothing here runs but one check: no span is made, no
 * context is carried, and the SDK is not even loaded.
 */
let tracer: ReturnType<typeof trace.getTracer> | undefined;

/** Attribute names, in the `chatbot_bridge.` namespace where OpenTelemetry names none. */
const A = {
  channel: "chatbot_bridge.channel",
  question: "chatbot_bridge.question.id",
  thread: "chatbot_bridge.thread",
  how: "chatbot_bridge.question.how",
  outcome: "chatbot_bridge.outcome",
  why: "chatbot_bridge.why",
  chatbot: "chatbot_bridge.chatbot",
  firstByteMs: "chatbot_bridge.backend.first_byte_ms",
  bytes: "chatbot_bridge.backend.bytes",
  error: "error.type",
  platform: "chatbot_bridge.platform",
  method: "rpc.method",
  status: "chatbot_bridge.status",
  operation: "db.operation.name",
} as const;

/**
 * Starts exporting (BatchSpanProcessor, to the OTLP/HTTP endpoint in JSON or protobuf) and
 * carrying a context through each question's awaits. Returns the stop, which sends what is
 * left; undefined when tracing is off.
 */
export async function startTracing(
  config: TracingConfig | undefined,
  log: Logger,
): Promise<(() => Promise<void>) | undefined> {
  if (!config || tracer) return undefined;
  // Loaded only when on: a bot without tracing never pays for the SDK.
  const [{ TracerProvider, BatchSpanProcessor }, { resourceFromAttributes }, hooks, core] =
    await Promise.all([
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/context-async-hooks"),
      import("@opentelemetry/core"),
    ]);
  const exporterOptions = { url: config.url, headers: config.headers };
  const exporter =
    config.protocol === "http/json"
      ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter(
          exporterOptions,
        )
      : new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter(
          exporterOptions,
        );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const manager = new hooks.AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracer = trace.getTracer("chatbot-bridge");
  // Where the traces go, never the headers (they carry the collector's key).
  log.info({ endpoint: new URL(config.url).origin, protocol: config.protocol }, "exporting traces");
  return async () => {
    tracer = undefined;
    await provider.shutdown().catch(() => undefined);
    trace.disable();
    context.disable();
    propagation.disable();
  };
}

/** What a question's trace is told as its life goes (QuestionLife). */
export interface QuestionTrace {
  /**
   * The question's root span, begun here or (`carried`, the W3C traceparent its job carried)
   * continuing the trace of the process that queued it.
   */
  begin(attributes: { channel: string; question: string; thread: string; how: string }): void;
  /** A state entered: the span of the one left ends, this one's begins. */
  state(name: string, attributes?: Attributes): void;
  /** The end state: the state's span and the root end, with the outcome. */
  end(state: string, why: string): void;
  /** Runs `fn` inside the question's span (its store calls become the question's). */
  within<T>(fn: () => T): T;
  /** Runs `fn` inside the current state's span (the answer's backend and platform calls). */
  withinState<T>(fn: () => T): T;
  /** The W3C traceparent to carry with the question's job, if traced. */
  carrier(): string | undefined;
}

const OFF: QuestionTrace = {
  begin: () => {},
  state: () => {},
  end: () => {},
  within: (fn) => fn(),
  withinState: (fn) => fn(),
  carrier: () => undefined,
};

/** A trace for one question: the one that does nothing while tracing is off. */
export function questionTrace(carried?: string): QuestionTrace {
  const on = tracer;
  if (!on) return OFF;
  const parent = carried
    ? propagation.extract(ROOT_CONTEXT, { traceparent: carried })
    : ROOT_CONTEXT;
  let root: Span | undefined;
  let rootContext: Context = parent;
  let state: { span: Span; context: Context } | undefined;
  const endState = () => {
    state?.span.end();
    state = undefined;
  };
  return {
    begin(attributes) {
      root = on.startSpan(
        "question",
        {
          kind: SpanKind.SERVER,
          attributes: {
            [A.channel]: attributes.channel,
            [A.question]: attributes.question,
            [A.thread]: attributes.thread,
            [A.how]: attributes.how,
          },
        },
        parent,
      );
      rootContext = trace.setSpan(parent, root);
    },
    state(name, attributes) {
      endState();
      const span = on.startSpan(name, { attributes }, rootContext);
      state = { span, context: trace.setSpan(rootContext, span) };
    },
    end(outcome, why) {
      endState();
      root?.setAttributes({ [A.outcome]: outcome, [A.why]: why });
      if (outcome === "failed") root?.setStatus({ code: SpanStatusCode.ERROR });
      root?.end();
      root = undefined;
    },
    within: (fn) => context.with(rootContext, fn),
    withinState: (fn) => context.with(state?.context ?? rootContext, fn),
    carrier() {
      const headers: Record<string, string> = {};
      propagation.inject(rootContext, headers);
      return headers.traceparent;
    },
  };
}

/** The backend call of one answer, told as it goes (answer-question.ts). */
export interface BackendCallTrace {
  firstByte(): void;
  received(text: string): void;
  end(outcome: string): void;
}

const BACKEND_OFF: BackendCallTrace = { firstByte: () => {}, received: () => {}, end: () => {} };

/** A span for the chat call to `chatbot`: time to the first byte, bytes received, outcome. */
export function backendCallTrace(chatbot: string): BackendCallTrace {
  const on = tracer;
  if (!on || !trace.getActiveSpan()) return BACKEND_OFF;
  const started = performance.now();
  const span = on.startSpan("chatbot chat", {
    kind: SpanKind.CLIENT,
    attributes: { [A.chatbot]: chatbot },
  });
  let bytes = 0;
  let firstByte = false;
  return {
    firstByte() {
      if (firstByte) return;
      firstByte = true;
      span.setAttribute(A.firstByteMs, Math.round(performance.now() - started));
    },
    received(text) {
      bytes += Buffer.byteLength(text);
    },
    end(outcome) {
      span.setAttributes({ [A.bytes]: bytes, [A.outcome]: outcome });
      if (outcome !== "complete" && outcome !== "stopped") {
        span.setAttribute(A.error, outcome);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

/**
 * A span for one platform call (a Slack Web API method, a Telegram Bot API method) made for a
 * question: `end` with its status ("ok", "429", …). None outside a question.
 */
export function platformCallTrace(
  platform: string,
  method: string,
): ((status: string) => void) | undefined {
  const on = tracer;
  if (!on || !trace.getActiveSpan()) return undefined;
  const span = on.startSpan(`${platform} ${method}`, {
    kind: SpanKind.CLIENT,
    attributes: { [A.platform]: platform, [A.method]: method },
  });
  return (status) => {
    span.setAttribute(A.status, status);
    if (status !== "ok") span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
}

/** A span for one store operation made for a question; none outside one (the timers). */
export function storeCallTrace(operation: string): ((failed: boolean) => void) | undefined {
  const on = tracer;
  if (!on || !trace.getActiveSpan()) return undefined;
  const span = on.startSpan(`store ${operation}`, {
    kind: SpanKind.CLIENT,
    attributes: { [A.operation]: operation },
  });
  return (failed) => {
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
}
