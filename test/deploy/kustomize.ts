// Renders deploy/kubernetes with kustomize (kubectl's, the one operators apply it with) and
// validates what it gives against the Kubernetes, KEDA and prometheus-operator schemas. No cluster is needed.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { ScaledObject, TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import {
  PrometheusRule,
  ServiceMonitor,
} from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Service } from "kubernetes-models/v1";
import { parseAllDocuments } from "yaml";

export const KUBERNETES_DIR = resolve(import.meta.dirname, "../../deploy/kubernetes");

/** A rendered object, as kustomize writes it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [field: string]: unknown };
  [field: string]: unknown;
}

/** The schema of each kind the manifests may hold: any other kind is a test failure. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
  "keda.sh/v1alpha1/TriggerAuthentication": TriggerAuthentication,
  "monitoring.coreos.com/v1/PrometheusRule": PrometheusRule,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
};

/** Throws, naming the object, when it is of a kind without a schema here or breaks its schema. */
export function validate(object: KubeObject): void {
  const key = `${object.apiVersion}/${object.kind}`;
  const Model = MODELS[key];
  if (!Model) throw new Error(`${key} ${object.metadata.name}: no schema to validate it with`);
  try {
    new Model(object as never).validate();
  } catch (error) {
    throw new Error(`${key} ${object.metadata.name}: ${String(error)}`);
  }
}

/**
 * Whether `kubectl` is on PATH, so the manifests can be rendered; when it is not, prints one
 * line saying so (a newcomer's machine, where the README lists no kubectl) and the calling
 * suite skips (`describe.skipIf(!kubectl)`). CI sets REQUIRE_KUBECTL=1 (.ci/run): there a
 * missing kubectl is a failure, not a skip.
 */
export function hasKubectl(suite: string): boolean {
  const run = spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code !== "ENOENT") return true;
  const why = "kubectl is not on PATH: it renders deploy/kubernetes (kubectl kustomize)";
  if (process.env.REQUIRE_KUBECTL === "1")
    throw new Error(`[${suite}] REQUIRE_KUBECTL=1 but ${why}`);
  console.warn(`[${suite}] skipped: ${why}`);
  return false;
}

/**
 * `kubectl kustomize <dir>` (`dir` under deploy/kubernetes, or absolute), parsed. kubectl
 * must be on PATH (see hasKubectl).
 */
export function render(dir: string): KubeObject[] {
  let output: string;
  try {
    output = execFileSync("kubectl", ["kustomize", resolve(KUBERNETES_DIR, dir)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new Error("kubectl is not on PATH: it renders deploy/kubernetes (kubectl kustomize)");
    }
    throw new Error(`kubectl kustomize ${dir} failed: ${(error as { stderr?: string }).stderr}`);
  }
  return parseAllDocuments(output).map((document) => document.toJS() as KubeObject);
}

/** A kustomization of the base with `components`, in a folder of its own, rendered. */
export function renderBaseWith(components: readonly string[]): KubeObject[] {
  const dir = mkdtempSync(join(tmpdir(), "kustomize-"));
  writeFileSync(
    join(dir, "kustomization.yaml"),
    JSON.stringify({
      apiVersion: "kustomize.config.k8s.io/v1beta1",
      kind: "Kustomization",
      // Relative: kustomize takes no absolute path to another kustomization.
      resources: [relative(dir, join(KUBERNETES_DIR, "base"))],
      components: components.map((c) => relative(dir, join(KUBERNETES_DIR, c))),
    }),
  );
  return render(dir);
}

/** The one object of `kind` (and `name`, when given); throws when there is not exactly one. */
export function only<T = KubeObject>(objects: KubeObject[], kind: string, name?: string): T {
  const found = objects.filter((o) => o.kind === kind && (!name || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`${found.length} ${kind} ${name ?? ""} objects`);
  return found[0] as T;
}

/** The with-redis overlay's Redis container. */
export function redisContainer(objects: KubeObject[]) {
  const found = only<StatefulSet>(objects, "StatefulSet", "chatbot-bridge-redis").spec?.template
    .spec?.containers[0];
  if (!found) throw new Error("the Redis StatefulSet has no container");
  return found;
}

/** The with-redis overlay's redis-server arguments, by option. */
export function redisArgs(objects: KubeObject[]): Map<string, string> {
  const args = redisContainer(objects).args ?? [];
  return new Map(
    args.flatMap((arg, i) => (arg.startsWith("--") ? [[arg, args[i + 1] ?? ""]] : [])),
  );
}
