/**
 * The Docker backend's container spec (src/sandbox/docker-spec.ts), offline: every container is created
 * hardened — the options the daemon is sent — and the reaper's orphan test only picks this host's dead
 * owners. (What the daemon makes of them, and what a program inside sees: docker.test.ts.)
 */
import { describe, expect, test } from "vitest";
import { SANDBOX_ENV } from "../../src/sandbox/bwrap.js";
import {
  containerOptions,
  isOrphan,
  OWNER_LABEL,
  ownerLabel,
  ROLE_LABEL,
} from "../../src/sandbox/docker-spec.js";

const spec = {
  image: `sha256:${"a".repeat(64)}`,
  cmd: ["python3", "-s", "-c", "pass"],
  role: "fork-server" as const,
  owner: ownerLabel("host-1", 4242),
  env: { MPLBACKEND: "Agg" },
  binds: [{ source: "/srv/nltk", target: "/opt/minedit/nltk_data" }],
  memoryBytes: 2 * 1024 ** 3,
  pidsLimit: 264,
  cpus: 1.5,
  scratchBytes: 128 * 1024 * 1024,
};

describe("container spec", () => {
  test("hardened: no network, read-only root with capped tmpfs, memory = memory + swap, pids, CPU, no capabilities, nobody", () => {
    const o = containerOptions(spec);
    expect(o).toMatchObject({
      Image: spec.image,
      Cmd: spec.cmd,
      User: "65534:65534",
      WorkingDir: "/tmp",
      Tty: false,
    });
    expect(o.NetworkDisabled).toBe(true);
    expect(o.HostConfig).toMatchObject({
      NetworkMode: "none",
      ReadonlyRootfs: true,
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes,
      PidsLimit: 264,
      NanoCpus: 1.5e9,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      IpcMode: "private",
      LogConfig: { Type: "none", Config: {} },
      Init: false,
      Binds: ["/srv/nltk:/opt/minedit/nltk_data:ro"],
    });
    expect(o.HostConfig?.Tmpfs?.["/tmp"]).toBe("rw,exec,nosuid,nodev,size=134217728,mode=1777");
    expect(o.HostConfig?.Tmpfs?.["/dev/shm"]).toMatch(/^rw,exec,nosuid,nodev,size=\d+,mode=1777$/);
    expect(o.HostConfig?.Runtime).toBeUndefined();
    expect(containerOptions({ ...spec, ociRuntime: "runsc" }).HostConfig?.Runtime).toBe("runsc");
    expect(o.Labels).toEqual({ [OWNER_LABEL]: "host-1:4242", [ROLE_LABEL]: "fork-server" });
  });

  test("the environment is the bwrap sandbox's, with the runtime's on top", () => {
    const env = containerOptions(spec).Env ?? [];
    for (const [key, value] of Object.entries(SANDBOX_ENV)) expect(env).toContain(`${key}=${value}`);
    expect(env).toContain("MPLBACKEND=Agg");
    expect(env.filter((e) => e.startsWith("PATH="))).toHaveLength(1);
  });

  test("orphans: containers of this host whose owner pid is gone; never another host's, never a live one's", () => {
    const alive = (pid: number) => pid === 7;
    expect(isOrphan("host-1:8", "host-1", alive)).toBe(true);
    expect(isOrphan("host-1:7", "host-1", alive)).toBe(false);
    expect(isOrphan("host-2:8", "host-1", alive)).toBe(false);
    expect(isOrphan("a:b:8", "a:b", alive)).toBe(true);
    for (const bad of [undefined, "", "host-1", "host-1:", "host-1:x", ":8", "host-1:-3"]) {
      expect(isOrphan(bad, "host-1", alive), String(bad)).toBe(false);
    }
  });
});
