import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parser } from "@prometheus-io/lezer-promql";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { httpOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv, telegramBotEnv } from "../support/process-test.ts";
import {
  hasKubectl,
  KUBERNETES_DIR,
  type KubeObject,
  only,
  renderBaseWith,
  validate,
} from "./kustomize.ts";

const track = cleanupAfterEach();
const OBSERVABILITY = join(KUBERNETES_DIR, "../observability");
/** The component's path as renderBaseWith takes it (under deploy/kubernetes). */
const COMPONENT = "../observability";

/** What Prometheus adds to every series it scrapes, and histograms' buckets. */
const TARGET_LABELS = new Set(["job", "instance", "namespace", "pod", "service", "le"]);

/**
 * The parts of a Grafana 10+ dashboard this one must have: a Prometheus data source variable
 * every panel and query names, and panels that each place and query something.
 * https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/view-dashboard-json-model/
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template.
const datasourceRef = z.object({ type: z.literal("prometheus"), uid: z.literal("${datasource}") });
const dashboardShape = z.object({
  title: z.string().min(1),
  uid: z.string().regex(/^[\w-]{1,40}$/),
  schemaVersion: z.number().min(36),
  templating: z.object({
    list: z
      .array(z.looseObject({ name: z.string(), type: z.string() }))
      .refine((vars) => vars.some((v) => v.type === "datasource" && v.name === "datasource"), {
        error: "no Prometheus data source variable named datasource",
      }),
  }),
  panels: z
    .array(
      z.object({
        id: z.number(),
        type: z.enum(["timeseries", "stat", "gauge", "table"]),
        title: z.string().min(1),
        description: z.string().min(1),
        datasource: datasourceRef,
        gridPos: z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }),
        targets: z
          .array(
            z.object({ refId: z.string(), expr: z.string().min(1), datasource: datasourceRef }),
          )
          .min(1),
      }),
    )
    .min(1),
});

/** A PrometheusRule's alerts, each saying what it means and how bad it is. */
const alertShape = z.object({
  alert: z.string().regex(/^ChatbotBridge[A-Za-z]+$/),
  expr: z.string().min(1),
  labels: z.object({ severity: z.enum(["critical", "warning"]) }),
  annotations: z.object({ summary: z.string().min(1), description: z.string().min(1) }),
});

/** Grafana's own variables, as Prometheus reads the expression once Grafana filled them in. */
function asPrometheusReadsIt(expr: string): string {
  return expr.replaceAll("$__rate_interval", "5m").replaceAll("$__interval", "1m");
}

/** A PromQL expression's metric names and label names; throws where it does not parse. */
function promqlParts(expr: string): { metrics: string[]; labels: string[] } {
  const text = asPrometheusReadsIt(expr);
  const metrics: string[] = [];
  const labels: string[] = [];
  parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) throw new Error(`does not parse at ${node.from}: ${text}`);
      const value = text.slice(node.from, node.to);
      if (node.name === "Identifier" && node.node.parent?.name === "VectorSelector") {
        metrics.push(value);
      }
      if (node.name === "LabelName") labels.push(value);
    },
  });
  return { metrics, labels };
}

/** Each metric of a `/metrics` page, with the labels its samples carry. */
function exposition(page: string): Map<string, Set<string>> {
  const metrics = new Map<string, Set<string>>();
  for (const line of page.split("\n")) {
    const help = /^# HELP (\w+) /.exec(line);
    if (help?.[1]) metrics.set(help[1], metrics.get(help[1]) ?? new Set());
    const sample = /^(\w+)\{([^}]*)\}/.exec(line);
    if (!sample?.[1]) continue;
    const labels = metrics.get(sample[1]) ?? new Set<string>();
    for (const [, name] of (sample[2] ?? "").matchAll(/(\w+)="/g)) if (name) labels.add(name);
    metrics.set(sample[1], labels);
  }
  // A histogram's series are named after it.
  for (const [name, labels] of [...metrics]) {
    for (const suffix of ["_bucket", "_sum", "_count"]) {
      if (!metrics.has(name + suffix)) metrics.set(name + suffix, labels);
    }
  }
  return metrics;
}

/** A whole bot on Slack and Telegram (every channel's series are there from its start). */
async function runningBotMetrics(): Promise<Map<string, Set<string>>> {
  const slack = track(await FakeSlack.start(), (f) => f.close());
  const telegram = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
  const bot = trackedBot(track, {
    ...telegramBotEnv(telegram, simulator),
    ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
  });
  return exposition(await (await fetch(`${await httpOf(bot)}/metrics`)).text());
}

const kubectl = hasKubectl("deploy/observability");

describe("the dashboard and alerts that ship (deploy/observability)", () => {
  const dashboard = dashboardShape.parse(
    JSON.parse(readFileSync(join(OBSERVABILITY, "grafana-dashboard.json"), "utf8")),
  );
  const rules = z
    .object({ spec: z.object({ groups: z.array(z.object({ rules: z.array(alertShape) })) }) })
    .parse(parseYaml(readFileSync(join(OBSERVABILITY, "prometheus-rules.yaml"), "utf8")));
  const alerts = rules.spec.groups.flatMap((group) => group.rules);
  const expressions = [
    ...dashboard.panels.flatMap((panel) =>
      panel.targets.map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })),
    ),
    ...alerts.map((alert) => ({ where: `alert ${alert.alert}`, expr: alert.expr })),
  ];

  it("holds the panels and alerts an operator needs, each expression valid PromQL", () => {
    expect(dashboard.panels.map((p) => p.title)).toEqual(
      expect.arrayContaining([
        "Questions by outcome",
        "Time to first text (p50, p95)",
        "Time to the complete answer (p50, p95)",
        "429s per platform",
        "Backend errors by kind",
        "Answers in flight and questions waiting",
        "Store errors",
        "Leads announced",
      ]),
    );
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      "ChatbotBridgeAnswersFailing",
      "ChatbotBridgeChatbotRefused",
      "ChatbotBridgeFirstTextSlow",
      "ChatbotBridgeNoLeadPoll",
      "ChatbotBridgeQueueGrowing",
      "ChatbotBridgeStoreUnreachable",
    ]);
    for (const { where, expr } of expressions) {
      expect(() => promqlParts(expr), where).not.toThrow();
    }
    // The parser can fail: an expression cut short is refused.
    expect(() => promqlParts("sum(rate(chatbot_bridge_questions_total[5m])")).toThrow();
  });

  it("uses only metrics and labels a running bot's /metrics has", async () => {
    const metrics = await runningBotMetrics();
    expect(metrics.size).toBeGreaterThan(20);
    for (const { where, expr } of expressions) {
      const parts = promqlParts(expr);
      const known = new Set(TARGET_LABELS);
      for (const metric of parts.metrics) {
        const labels = metrics.get(metric);
        expect(labels, `${where}: ${metric} is not in /metrics`).toBeDefined();
        for (const label of labels ?? []) known.add(label);
      }
      for (const label of parts.labels) {
        expect(known.has(label), `${where}: no metric there has the label ${label}`).toBe(true);
      }
    }
  });

  describe.skipIf(!kubectl)("as a Kustomize component", () => {
    const rendered = (): KubeObject[] => renderBaseWith([COMPONENT]);

    it("adds the rule, the scrape and the dashboard's ConfigMap, each valid for its schema", () => {
      const objects = rendered();
      for (const object of objects) validate(object);
      const rule = only(objects, "PrometheusRule", "chatbot-bridge");
      expect(JSON.stringify(rule)).toContain("ChatbotBridgeAnswersFailing");
      const dashboardMap = only<{
        metadata: { labels?: Record<string, string> };
        data: Record<string, string>;
      }>(objects, "ConfigMap", "chatbot-bridge-dashboard");
      expect(dashboardMap.metadata.labels?.grafana_dashboard).toBe("1");
      expect(
        dashboardShape.parse(JSON.parse(dashboardMap.data["grafana-dashboard.json"] ?? "")).uid,
      ).toBe(dashboard.uid);
    });

    it("scrapes the bot's Service on its http port, where /metrics is", () => {
      const objects = rendered();
      const monitor = only<{
        spec: {
          selector: { matchLabels: Record<string, string> };
          endpoints: { port: string; path: string }[];
        };
      }>(objects, "ServiceMonitor", "chatbot-bridge");
      const service = only<{
        metadata: { labels: Record<string, string> };
        spec: { ports: { name: string }[] };
      }>(objects, "Service", "chatbot-bridge");
      expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
      for (const endpoint of monitor.spec.endpoints) {
        expect(endpoint.path).toBe("/metrics");
        expect(service.spec.ports.map((p) => p.name)).toContain(endpoint.port);
      }
    });
  });
});
