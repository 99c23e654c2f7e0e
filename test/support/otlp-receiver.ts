import { createServer, type IncomingHttpHeaders } from "node:http";

/** A span as OTLP/JSON carries it, with its attributes read into a plain record. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, string | number | boolean>;
  /** The span's status code (2: error). */
  status: number | undefined;
  service: string | undefined;
}

/** One export request as it arrived. */
export interface ExportRequest {
  contentType: string | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A collector on loopback that takes OTLP/HTTP trace exports and keeps what they carried. */
export interface OtlpReceiver {
  /** Its base URL, as OTEL_EXPORTER_OTLP_ENDPOINT names one (`/v1/traces` is added). */
  url: string;
  readonly requests: readonly ExportRequest[];
  /** The spans of every JSON export so far. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

interface JsonValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface JsonExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: JsonValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: { key: string; value: JsonValue }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ExportRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST" && request.url === "/v1/traces") {
        requests.push({
          contentType: request.headers["content-type"],
          headers: request.headers,
          body: Buffer.concat(chunks),
        });
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests
        .filter((r) => r.contentType?.startsWith("application/json"))
        .flatMap((r) => spansOf(JSON.parse(r.body.toString("utf8")) as JsonExport)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function spansOf(body: JsonExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resource) => {
    const service = attributesOf(resource.resource?.attributes)["service.name"];
    return (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        attributes: attributesOf(span.attributes),
        status: span.status?.code,
        service: typeof service === "string" ? service : undefined,
      })),
    );
  });
}

function attributesOf(
  list: { key: string; value: JsonValue }[] | undefined,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const read =
      value.stringValue ??
      (value.intValue === undefined ? undefined : Number(value.intValue)) ??
      value.doubleValue ??
      value.boolValue;
    if (read !== undefined) out[key] = read;
  }
  return out;
}
