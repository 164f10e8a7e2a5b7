/**
 * Finding where a sandbox's cgroups go (src/sandbox/run-cgroup.ts): the hierarchies from mountinfo and
 * this process's groups from /proc/self/cgroup, on cgroup v1 (this project's machines: a `memory` and a
 * `pids` hierarchy), v2 (one unified hierarchy), and a container's partial view. The lines are the
 * kernel's formats (proc(5), cgroups(7)); the v1 case is also read from this machine's own /proc.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { cgroupMounts, located, ownGroups } from "../../src/sandbox/run-cgroup.js";

describe("cgroup hierarchies", () => {
  test("v1 and v2 mounts, with their controllers", () => {
    const mountinfo = [
      "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
      "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
      "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
      "33 30 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
      "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate",
      "25 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
    ].join("\n");
    const found = cgroupMounts(mountinfo);
    expect(found.map((m) => [m.point, m.version])).toEqual([
      ["/sys/fs/cgroup/memory", 1],
      ["/sys/fs/cgroup/pids", 1],
      ["/sys/fs/cgroup/cpu,cpuacct", 1],
      ["/sys/fs/cgroup/unified", 2],
    ]);
    expect(found[0]?.options).toContain("memory");
    expect(found[2]?.options).toEqual(["rw", "cpu", "cpuacct"]);
  });

  test("this process's groups: v1 by controller, v2 under the empty name", () => {
    const groups = ownGroups(
      "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/54bc\n1:cpu,cpuacct:/a\n0::/user.slice/x.service\n",
    );
    expect(groups.get("memory")).toBe("/process_api/54bc");
    expect(groups.get("pids")).toBe("/");
    expect(groups.get("cpuacct")).toBe("/a");
    expect(groups.get("")).toBe("/user.slice/x.service");
  });

  test("a group in a mount of the whole hierarchy, and in one that shows only part of it", () => {
    expect(located("/sys/fs/cgroup/memory", "/", "/process_api/54bc")).toBe(
      "/sys/fs/cgroup/memory/process_api/54bc",
    );
    // A container's mount of its own subtree: the group is below the mount's root, or not visible at all.
    expect(located("/sys/fs/cgroup", "/docker/abc", "/docker/abc/inner")).toBe("/sys/fs/cgroup/inner");
    expect(located("/sys/fs/cgroup", "/docker/abc", "/docker/abc")).toBe("/sys/fs/cgroup");
    expect(located("/sys/fs/cgroup", "/docker/abc", "/docker/abcd")).toBeNull();
  });

  test("this machine: the memory and pids hierarchies, and this process in each", () => {
    const found = cgroupMounts(readFileSync("/proc/self/mountinfo", "utf8"));
    const groups = ownGroups(readFileSync("/proc/self/cgroup", "utf8"));
    const v1 = found.filter(
      (m) => m.version === 1 && (m.options.includes("memory") || m.options.includes("pids")),
    );
    const v2 = found.find((m) => m.version === 2);
    // Either both v1 controllers are mounted with this process's group known, or a unified hierarchy is.
    if (v1.length === 2) for (const c of ["memory", "pids"]) expect(groups.get(c)).toMatch(/^\//);
    else expect(v2 !== undefined && groups.has("")).toBe(true);
  });
});
