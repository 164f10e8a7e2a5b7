/**
 * deploy/ (issue 17): every manifest parses, names what it must, and agrees with the rest — the configs
 * with the real config schema, the probes with the ports the commands listen on, the ScaledObject with
 * the queue's waiting list, the worker's resources with its slots × memory, the selectors with the pod
 * labels. `kubectl --dry-run=client` cannot run offline (it downloads the API server's OpenAPI schema
 * and discovers its resource types first), so when kubectl is on PATH the kustomization is rendered with
 * `kubectl kustomize`, which needs no cluster.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { parseConfig } from "../../src/config.js";
import { queueKeys } from "../../src/queue/protocol.js";

const DEPLOY = fileURLToPath(new URL("../../deploy", import.meta.url));

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML; each field read is checked.
type Doc = Record<string, any>;

function documents(file: string): Doc[] {
  return parseAllDocuments(readFileSync(join(DEPLOY, file), "utf8")).map((doc) => {
    expect(doc.errors, `${file}: ${doc.errors.join("; ")}`).toEqual([]);
    return doc.toJS() as Doc;
  });
}

const kustomization = parseYaml(readFileSync(join(DEPLOY, "kustomization.yaml"), "utf8")) as Doc;
const files = kustomization.resources as string[];
const all = files.flatMap((file) => documents(file).map((doc) => ({ file, doc })));
const find = (kind: string, name: string): Doc => {
  const found = all.find(({ doc }) => doc.kind === kind && doc.metadata?.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name} in deploy/`);
  return found.doc;
};
const configMap = find("ConfigMap", "minedit-config");
const frontConfig = parseConfig(JSON.parse(configMap.data["front.json"]));
const workerConfig = parseConfig(JSON.parse(configMap.data["worker.json"]));
const front = find("Deployment", "minedit-front");
const worker = find("Deployment", "minedit-worker");
const container = (deployment: Doc): Doc => deployment.spec.template.spec.containers[0];
const argAfter = (args: string[], flag: string): string | undefined => args[args.indexOf(flag) + 1];

/** Kubernetes quantities as numbers: cores for CPU, bytes for memory. */
function quantity(text: string | number): number {
  const match = /^([0-9.]+)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(String(text));
  if (match === null) throw new Error(`not a quantity: ${text}`);
  const unit: Record<string, number> = {
    m: 1e-3,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
  };
  return Number(match[1]) * (match[2] === undefined ? 1 : (unit[match[2]] as number));
}

/** Whether a selector's matchLabels all appear in `labels`. */
function selects(selector: Doc, labels: Doc): boolean {
  return Object.entries(selector.matchLabels ?? selector).every(([k, v]) => labels[k] === v);
}

describe("deploy/ manifests", () => {
  test("every file of the kustomization is in deploy/ and every YAML file of deploy/ is used or documented", () => {
    const yamlFiles = readdirSync(DEPLOY).filter((f) => f.endsWith(".yaml"));
    expect(yamlFiles.sort()).toEqual([...files, "kustomization.yaml", "redis-values.yaml"].sort());
  });

  test("every resource has apiVersion, kind, a name and the minedit namespace", () => {
    expect(all.length).toBeGreaterThanOrEqual(12);
    for (const { file, doc } of all) {
      expect(doc.apiVersion, file).toMatch(/^([a-z0-9.-]+\/)?v[0-9]+([a-z]+[0-9]+)?$/);
      expect(typeof doc.kind, file).toBe("string");
      expect(doc.metadata?.name, file).toMatch(/^[a-z0-9-]+$/);
      if (doc.kind !== "Namespace")
        expect(doc.metadata?.namespace, `${file} ${doc.metadata?.name}`).toBe("minedit");
    }
  });

  test("the configs parse with the real schema and say what the deployment needs", () => {
    expect(frontConfig.server.host).toBe("0.0.0.0");
    expect(frontConfig.server.maxConnectionAgeMs).toBeGreaterThan(0);
    expect(workerConfig.server.host).toBe("0.0.0.0");
    // Fronts and workers on one queue.
    expect(queueKeys(frontConfig.queue).wait).toBe(queueKeys(workerConfig.queue).wait);
    expect(frontConfig.queue.resultTtlMs).toBeGreaterThan(0);
  });

  test("both Deployments: selector = pod labels, the image, the config mounted, --queue with the Secret's password", () => {
    for (const deployment of [front, worker]) {
      const labels = deployment.spec.template.metadata.labels;
      expect(selects(deployment.spec.selector, labels)).toBe(true);
      const c = container(deployment);
      expect(c.image).toMatch(/^minedit:/);
      expect(argAfter(c.args, "--queue")).toMatch(
        /^redis:\/\/:\$\(REDIS_PASSWORD\)@minedit-redis-master\.minedit\.svc\.cluster\.local:6379$/,
      );
      expect(c.env.find((e: Doc) => e.name === "REDIS_PASSWORD").valueFrom.secretKeyRef).toEqual({
        name: "minedit-redis",
        key: "redis-password",
      });
      const configPath = argAfter(c.args, "--config") as string;
      const mount = c.volumeMounts.find((m: Doc) => configPath.startsWith(`${m.mountPath}/`));
      const volume = deployment.spec.template.spec.volumes.find((v: Doc) => v.name === mount.name);
      expect(volume.configMap.name).toBe("minedit-config");
      expect(Object.keys(configMap.data)).toContain(configPath.slice(mount.mountPath.length + 1));
      // What the bubblewrap sandbox needs in a pod.
      expect(c.securityContext).toMatchObject({
        procMount: "Unmasked",
        seccompProfile: { type: "Unconfined" },
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
      expect(deployment.spec.template.spec.hostUsers).toBe(false);
      for (const kind of ["requests", "limits"]) {
        expect(quantity(c.resources[kind].cpu)).toBeGreaterThan(0);
        expect(quantity(c.resources[kind].memory)).toBeGreaterThan(0);
      }
    }
  });

  test("front: serve on the config's port, native gRPC probes on grpc.health.v1, preStop drain", () => {
    const c = container(front);
    expect(c.args[0]).toBe("serve");
    const grpcPort = c.ports.find((p: Doc) => p.name === "grpc").containerPort;
    expect(grpcPort).toBe(frontConfig.server.port);
    expect(c.ports.find((p: Doc) => p.name === "openrlhf").containerPort).toBe(
      frontConfig.server.openrlhfPort,
    );
    expect(c.readinessProbe.grpc).toEqual({ port: grpcPort, service: "minedit.v1.RewardService" });
    expect(c.livenessProbe.grpc).toEqual({ port: grpcPort });
    expect(c.startupProbe.grpc.port).toBe(grpcPort);
    expect(c.lifecycle.preStop.exec.command).toEqual(["sleep", expect.stringMatching(/^\d+$/)]);
    const preStopS = Number(c.lifecycle.preStop.exec.command[1]);
    // The pause plus the server's 10 s shutdown grace fit in the termination grace period.
    expect(front.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStopS + 10);
    expect(quantity(c.resources.requests.cpu)).toBeGreaterThanOrEqual(frontConfig.pool.threads);
  });

  test("headless Service: clusterIP None over the fronts' grpc port, for dns:/// round-robin", () => {
    const service = find("Service", "minedit-front");
    expect(service.spec.clusterIP).toBe("None");
    expect(selects(service.spec.selector, front.spec.template.metadata.labels)).toBe(true);
    expect(selects(service.spec.selector, worker.spec.template.metadata.labels)).toBe(false);
    const grpc = service.spec.ports.find((p: Doc) => p.name === "grpc");
    expect(grpc).toMatchObject({ port: frontConfig.server.port, targetPort: "grpc", appProtocol: "grpc" });
  });

  test("worker: --slots, health port probed over gRPC, resources sized from slots × memory", () => {
    const c = container(worker);
    expect(c.args[0]).toBe("worker");
    const slots = Number(argAfter(c.args, "--slots"));
    expect(slots).toBe(workerConfig.sandbox.executionConcurrency);
    const healthPort = Number(argAfter(c.args, "--health-port"));
    expect(c.ports.find((p: Doc) => p.name === "health").containerPort).toBe(healthPort);
    expect(c.readinessProbe.grpc.port).toBe(healthPort);
    expect(c.livenessProbe.grpc.port).toBe(healthPort);
    expect(quantity(c.resources.requests.cpu)).toBe(slots);
    expect(quantity(c.resources.limits.cpu)).toBe(slots);
    expect(quantity(c.resources.limits.memory)).toBeGreaterThanOrEqual(
      slots * workerConfig.limits.tests.memoryBytes,
    );
    // Draining lets a run at the calibration's wall ceiling finish.
    expect(worker.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(
      parseConfig({}).tasks.calibration.wallCeilingMs,
    );
  });

  test("KEDA: the worker Deployment scales on the queue's waiting jobs (prioritized set and list), with the Redis password", () => {
    const scaled = find("ScaledObject", "minedit-worker");
    expect(scaled.apiVersion).toBe("keda.sh/v1alpha1");
    expect(scaled.spec.scaleTargetRef.name).toBe(worker.metadata.name);
    expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    expect(scaled.spec.maxReplicaCount).toBeGreaterThan(scaled.spec.minReplicaCount);
    // Jobs wait in BullMQ's prioritized set (every job has a priority), lost ones in its list; KEDA's
    // Redis scaler counts either by the key's type (tests/queue/scale-out.test.ts, "slowest first").
    const keys = queueKeys(workerConfig.queue);
    expect(scaled.spec.triggers.map((t: Doc) => t.metadata.listName)).toEqual([keys.prioritized, keys.wait]);
    for (const trigger of scaled.spec.triggers) {
      expect(trigger.type).toBe("redis");
      expect(trigger.metadata.address).toBe("minedit-redis-master.minedit.svc.cluster.local:6379");
      expect(Number(trigger.metadata.listLength)).toBeGreaterThan(0);
      const auth = find("TriggerAuthentication", trigger.authenticationRef.name);
      expect(auth.spec.secretTargetRef).toEqual([
        { parameter: "password", name: "minedit-redis", key: "redis-password" },
      ]);
    }
  });

  test("PodDisruptionBudgets cover fronts (one always up) and workers", () => {
    const frontBudget = find("PodDisruptionBudget", "minedit-front");
    expect(frontBudget.spec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(selects(frontBudget.spec.selector, front.spec.template.metadata.labels)).toBe(true);
    const workerBudget = find("PodDisruptionBudget", "minedit-worker");
    expect(workerBudget.spec.maxUnavailable).toBeDefined();
    expect(selects(workerBudget.spec.selector, worker.spec.template.metadata.labels)).toBe(true);
  });

  test("NetworkPolicies: trainers → fronts, fronts and workers → Redis and DNS only, Redis from them and KEDA", () => {
    const frontPolicy = find("NetworkPolicy", "minedit-front");
    expect(selects(frontPolicy.spec.podSelector, front.spec.template.metadata.labels)).toBe(true);
    expect(frontPolicy.spec.ingress[0].ports.map((p: Doc) => p.port).sort()).toEqual(
      [frontConfig.server.port, frontConfig.server.openrlhfPort].sort(),
    );
    const workerPolicy = find("NetworkPolicy", "minedit-worker");
    expect(selects(workerPolicy.spec.podSelector, worker.spec.template.metadata.labels)).toBe(true);
    expect(workerPolicy.spec.ingress).toEqual([]);
    for (const policy of [frontPolicy, workerPolicy]) {
      expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
      const ports = policy.spec.egress.flatMap((rule: Doc) =>
        rule.ports.map((p: Doc) => `${p.protocol}/${p.port}`),
      );
      expect(ports.sort()).toEqual(["TCP/53", "TCP/6379", "UDP/53"]);
    }
    const redisPolicy = find("NetworkPolicy", "minedit-redis");
    const sources = redisPolicy.spec.ingress[0].from;
    expect(sources.some((s: Doc) => selects(s.podSelector, front.spec.template.metadata.labels))).toBe(true);
    expect(sources.some((s: Doc) => selects(s.podSelector, worker.spec.template.metadata.labels))).toBe(true);
    expect(
      sources.some((s: Doc) => s.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"] === "keda"),
    ).toBe(true);
  });

  test("Redis comes from the Bitnami chart: values that BullMQ needs, and the names the manifests use", () => {
    const values = parseYaml(readFileSync(join(DEPLOY, "redis-values.yaml"), "utf8")) as Doc;
    expect(values.architecture).toBe("standalone");
    expect(values.auth).toMatchObject({
      enabled: true,
      existingSecret: "minedit-redis",
      existingSecretPasswordKey: "redis-password",
    });
    expect(values.commonConfiguration).toMatch(/^maxmemory-policy noeviction$/m);
    expect(values.commonConfiguration).toMatch(/^appendonly yes$/m);
    expect(readFileSync(join(DEPLOY, "redis-values.yaml"), "utf8")).toMatch(
      /helm install minedit-redis bitnami\/redis/,
    );
  });

  test("kubectl kustomize renders the kustomization offline", (context) => {
    const probe = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" });
    if (probe.error !== undefined) {
      // scripts/ensure-system.sh installs it (Debian's kubernetes-client), so CI always renders.
      context.skip(
        `kubectl cannot run (${probe.error.message}): install Debian's kubernetes-client (scripts/ensure-system.sh does, as root)`,
      );
    }
    const rendered = spawnSync("kubectl", ["kustomize", DEPLOY], { encoding: "utf8", timeout: 60_000 });
    expect(rendered.status, rendered.stderr).toBe(0);
    const kinds = parseAllDocuments(rendered.stdout).map((d) => (d.toJS() as Doc).kind);
    expect(kinds.sort()).toEqual(all.map(({ doc }) => doc.kind).sort());
  });
});
