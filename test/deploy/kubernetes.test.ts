import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { parse as parseEnv } from "dotenv";
import type { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import type { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import type { ConfigMap } from "kubernetes-models/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, SETTING_NAMES } from "../../src/config.ts";
import { ANSWER_QUEUE_KEY } from "../../src/coordination/shared-queue.ts";
import { STREAM_GROUP } from "../../src/coordination/work-stream.ts";
import { type RunningHttpServer, startHttpServer } from "../../src/http-server.ts";
import { createLogger } from "../../src/log.ts";
import { Metrics } from "../../src/metrics.ts";
import { DEFAULT_NAMESPACE } from "../../src/store/redis-store.ts";
import { parseDockerfile, REAL, SECRET_NAME } from "./deploy-files.ts";
import {
  hasKubectl,
  KUBERNETES_DIR,
  type KubeObject,
  only,
  redisArgs,
  redisContainer,
  render,
  renderBaseWith,
  validate,
} from "./kustomize.ts";

// Slack allows an app at most 10 Socket Mode connections, and each replica opens one.
// https://docs.slack.dev/apis/events-api/using-socket-mode
const SLACK_SOCKET_CONNECTIONS = 10;
// Past SHUTDOWN_GRACE_MS the process still stops its channels and closes the store
// (main.ts: guardProcess gives it 5 s more before it exits on its own).
const CLOSE_MS = 5_000;

const RENDERINGS: Record<string, () => KubeObject[]> = {
  base: () => render("base"),
  "overlays/with-redis": () => render("overlays/with-redis"),
  "overlays/existing-redis": () => render("overlays/existing-redis"),
  "overlays/sentinel-redis": () => render("overlays/sentinel-redis"),
  "base + components/cpu-autoscaling": () => renderBaseWith(["components/cpu-autoscaling"]),
};
const kubectl = hasKubectl("deploy/kubernetes");
const rendered: Record<string, KubeObject[]> = kubectl
  ? Object.fromEntries(Object.entries(RENDERINGS).map(([name, make]) => [name, make()]))
  : {};

const bot = (objects: KubeObject[]) => only<Deployment>(objects, "Deployment", "chatbot-bridge");
const container = (objects: KubeObject[]) => {
  const found = bot(objects).spec?.template.spec?.containers[0];
  if (!found) throw new Error("the Deployment has no container");
  return found;
};
const configMap = (objects: KubeObject[]) => only<ConfigMap>(objects, "ConfigMap");
/** The settings the ConfigMap gives the bot, as loadConfig reads them. */
const settings = (objects: KubeObject[]) => loadConfig({ ...configMap(objects).data });

describe.skipIf(!kubectl).each(Object.keys(RENDERINGS))("deploy/kubernetes: %s", (name) => {
  const objects = rendered[name] ?? [];

  it("renders objects that each pass their Kubernetes or KEDA schema", () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) validate(object);
    // Secrets are the operator's to create: none is ever rendered from the repository.
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
  });

  it("sets only variables the bot reads, and no secret in a ConfigMap", () => {
    const set = [
      ...Object.keys(configMap(objects).data ?? {}),
      ...(container(objects).env ?? []).map((e) => e.name),
    ];
    expect(set.filter((v) => !SETTING_NAMES.includes(v))).toEqual([]);
    for (const [key, value] of Object.entries(configMap(objects).data ?? {})) {
      if (!SECRET_NAME.test(key)) continue;
      // A Redis of the overlay's own, without a password, is the one exception.
      expect(key).toBe("STORE_URL");
      expect(new URL(value).password).toBe("");
    }
    expect(container(objects).envFrom).toContainEqual({
      secretRef: { name: "chatbot-bridge-secrets" },
    });
  });

  it("listens where its probes and Service look, and drains within the grace period", () => {
    const c = container(objects);
    const config = settings(objects);
    expect(c.ports).toEqual([{ name: "http", containerPort: config.port }]);
    expect(config.port).toBe(loadConfig({}).port);
    const service = only<{ spec: { ports: { targetPort: string }[] } }>(
      objects,
      "Service",
      "chatbot-bridge",
    );
    expect(service.spec.ports.map((p) => p.targetPort)).toEqual(["http"]);
    expect(c.startupProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(c.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(c.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "http" });
    const graceSeconds = bot(objects).spec?.template.spec?.terminationGracePeriodSeconds ?? 30;
    expect(graceSeconds * 1000).toBeGreaterThan(config.shutdownGraceMs + CLOSE_MS);
  });

  it("runs as the image's user on a read-only root, every path it writes an emptyDir", () => {
    const pod = bot(objects).spec?.template.spec;
    const c = container(objects);
    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    expect(c.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
    expect(c.resources?.requests).toMatchObject({ cpu: expect.any(String) });
    const dataDir = parseDockerfile(REAL.dockerfile)
      .all.filter((i) => i.keyword === "ENV")
      .map((i) => /DATA_DIR=(\S+)/.exec(i.args)?.[1])
      .find(Boolean);
    const emptyDirs = new Set((pod?.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
    const writable = (c.volumeMounts ?? [])
      .filter((m) => emptyDirs.has(m.name))
      .map((m) => m.mountPath);
    expect(writable).toEqual(expect.arrayContaining([dataDir, "/tmp"]));
  });

  it("scales within Slack's Socket Mode connections, on the queue the bot uses", () => {
    const scaled = objects.filter((o) => o.kind === "ScaledObject") as unknown as ScaledObject[];
    const hpas = objects.filter(
      (o) => o.kind === "HorizontalPodAutoscaler",
    ) as unknown as HorizontalPodAutoscaler[];
    if (name === "base") expect(scaled.length + hpas.length).toBe(0);
    else expect(scaled.length + hpas.length).toBe(1);
    for (const hpa of hpas) {
      expect(hpa.spec?.maxReplicas).toBeLessThanOrEqual(SLACK_SOCKET_CONNECTIONS);
      expect(hpa.spec?.scaleTargetRef.name).toBe("chatbot-bridge");
    }
    for (const object of scaled) {
      expect(object.spec?.maxReplicaCount).toBeLessThanOrEqual(SLACK_SOCKET_CONNECTIONS);
      // At 0 replicas nothing would receive a question to queue: the trigger could never fire.
      expect(object.spec?.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(object.spec?.scaleTargetRef.name).toBe("chatbot-bridge");
      const streams = object.spec?.triggers.find((t) => t.type.startsWith("redis-"));
      expect(streams?.type).toMatch(/^redis-(sentinel-)?streams$/);
      expect(streams?.metadata).toMatchObject({
        stream: `${DEFAULT_NAMESPACE}:${ANSWER_QUEUE_KEY}`,
        consumerGroup: STREAM_GROUP,
        lagCount: expect.stringMatching(/^[1-9]\d*$/),
      });
    }
  });
});

describe.skipIf(!kubectl)("deploy/kubernetes/overlays/sentinel-redis", () => {
  it("has the bot and KEDA ask the same Sentinels for the same primary", () => {
    const objects = rendered["overlays/sentinel-redis"] ?? [];
    const sentinel = settings(objects).storeSentinel;
    expect(sentinel?.nodes.length).toBeGreaterThan(0);
    const scaled = only<ScaledObject>(objects, "ScaledObject", "chatbot-bridge");
    const trigger = scaled.spec?.triggers.find((t) => t.type === "redis-sentinel-streams");
    expect(trigger?.metadata).toMatchObject({
      addresses: sentinel?.nodes.map((n) => `${n.host}:${n.port}`).join(","),
      sentinelMaster: sentinel?.name,
    });
    expect(trigger?.metadata).not.toHaveProperty("address");
    expect(trigger?.authenticationRef).toEqual({ name: "chatbot-bridge-redis" });
  });
});

describe.skipIf(!kubectl)("deploy/kubernetes/overlays/with-redis", () => {
  it("points the bot and KEDA at the Redis it brings", () => {
    const objects = rendered["overlays/with-redis"] ?? [];
    const storeUrl = new URL(String(configMap(objects).data?.STORE_URL));
    const redis = only<{ spec: { ports: { port: number }[] } }>(
      objects,
      "Service",
      storeUrl.hostname,
    );
    expect(redis.spec.ports.map((p) => p.port)).toContain(Number(storeUrl.port));
    const scaled = only<ScaledObject>(objects, "ScaledObject");
    expect(scaled.spec?.triggers[0]?.metadata).toMatchObject({ address: storeUrl.host });
    // Redis 7 or newer: XINFO GROUPS reports the lag KEDA's lagCount reads.
    const image = redisContainer(objects).image;
    expect(Number(/^redis:(\d+)/.exec(image ?? "")?.[1])).toBeGreaterThanOrEqual(7);
  });

  it("keeps Redis's data on a PersistentVolumeClaim, append-only, and bounds its memory by evicting only what has a TTL", () => {
    const objects = rendered["overlays/with-redis"] ?? [];
    const redis = only<StatefulSet>(objects, "StatefulSet", "chatbot-bridge-redis");
    const spec = redis.spec;
    // A claim of its own that outlives the pod, mounted where Redis writes; no emptyDir.
    const claims = spec?.volumeClaimTemplates ?? [];
    expect(claims.map((c) => c.spec?.accessModes)).toEqual([["ReadWriteOnce"]]);
    const container = redisContainer(objects);
    const data = container.volumeMounts?.find((m) => m.mountPath === "/data");
    expect(claims.map((c) => c.metadata?.name)).toEqual([data?.name]);
    expect(spec?.template.spec?.volumes ?? []).toEqual([]);
    expect(spec?.serviceName).toBe("chatbot-bridge-redis");
    const args = redisArgs(objects);
    expect(args.get("--appendonly")).toBe("yes");
    // Evictions take only keys with a TTL: the bot's kept records have none (docs/deploy.md, "Redis memory").
    expect(args.get("--maxmemory-policy")).toBe("volatile-lru");
    const maxmemory = bytesOf(args.get("--maxmemory") ?? "");
    expect(maxmemory).toBeGreaterThanOrEqual(512 * MB);
    // The container holds Redis's memory and what a rewrite of the append-only file forks.
    const limit = bytesOf(String(container.resources?.limits?.memory ?? ""));
    expect(limit).toBeGreaterThan(1.5 * maxmemory);
  });
});

const MB = 1024 * 1024;

/** "512mb", "896Mi", "2Gi" in bytes (Redis's and Kubernetes's binary units). */
function bytesOf(size: string): number {
  const match = /^(\d+)\s*(mb|gb|Mi|Gi)$/.exec(size);
  if (!match) throw new Error(`not a size: ${size}`);
  const unit = match[2]?.toLowerCase().startsWith("g") ? 1024 * MB : MB;
  return Number(match[1]) * unit;
}

describe("deploy/kubernetes/secret.example.env", () => {
  it("lists only variables the bot reads, and is the file git ignores once copied", () => {
    const example = parseEnv(readFileSync(join(KUBERNETES_DIR, "secret.example.env")));
    expect(Object.keys(example).length).toBeGreaterThan(0);
    expect(Object.keys(example).filter((v) => !SETTING_NAMES.includes(v))).toEqual([]);
    expect(readFileSync(join(KUBERNETES_DIR, "../../.gitignore"), "utf8")).toMatch(
      /^deploy\/kubernetes\/secret\.env$/m,
    );
  });
});

describe.skipIf(!kubectl)("the probes the manifests name", () => {
  let server: RunningHttpServer;
  beforeAll(async () => {
    server = await startHttpServer({
      port: 0,
      host: "127.0.0.1",
      routes: [],
      readiness: async () => ({ problems: [] }),
      metrics: new Metrics(),
      log: createLogger({ level: "silent", secrets: [] }),
    });
  });
  afterAll(() => server.close());

  it("are served by the bot's HTTP server", async () => {
    const c = container(rendered.base ?? []);
    for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe]) {
      const response = await fetch(`http://127.0.0.1:${server.port}${probe?.httpGet?.path}`);
      expect(response.status, probe?.httpGet?.path).toBe(200);
    }
  });
});
