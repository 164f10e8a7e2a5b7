/**
 * The Docker backend (`sandbox.backend: docker`, `--sandbox docker`; docs/sandbox.md#docker), through
 * dockerode. The same warm design as the bubblewrap one: each execution slot is one long-lived, hardened
 * container (docker-spec.ts) whose init is the fork server (sandbox/python/forkserver.py in docker mode),
 * driven by fork-server.ts over a unix socket of this process bind-mounted into the container (it takes
 * the fork server's one connection and no other). The container's own stdout and stderr, which Docker's
 * attach stream carries here demultiplexed, are the runs' output pipes: the program writes straight into
 * them (nothing inside relays it), its output is capped by fork-server.ts and ends with the fork server's
 * nonce marker, as under bwrap. The fork server cleans the container after every run as it cleans a bwrap
 * sandbox; one that is not clean, dies, or outlives a run's limit is removed and replaced by the pool.
 * (Not one `docker exec` per run: an exec costs 60–80 ms of daemon work, and containerd closes an exec's
 * output two seconds after its own process ends, so it could not hand its pipes to a longer run.)
 *
 * A container that ends without this side asking (the daemon stopped or restarted, `docker kill`) is an
 * infrastructure fault: the run in it fails with `Unavailable` (INFRA_ERROR, retried once on a new
 * container), never a verdict — the program cannot end its container, whose init ignores its signals.
 *
 * Images are built locally from Debian packages (sandbox/docker/build-image.sh), one per task runtime, and
 * pinned by ID in the configuration; `create` checks them, and the OCI runtime (gVisor's `runsc`) when one
 * is configured, and removes the containers a crashed server of this host left behind.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import Docker from "dockerode";
import { ErrorCode, MineditError } from "../errors.js";
import { bootFailed, bootRequest, bootResult, DOCKER_BOOT_SOURCE } from "./docker-boot.js";
import { type ContainerSpec, containerOptions, isOrphan, OWNER_LABEL, ownerLabel } from "./docker-spec.js";
import type { ForkServerHost } from "./fork-server.js";
import type { LaunchedProgram } from "./launched-program.js";
import { OutputCollector } from "./output-capture.js";
import { checkLimits } from "./request-checks.js";
import { RunDeadline } from "./run-deadline.js";
import { DEFAULT_RUNTIME, dataBinds, type Runtime, type RuntimeName, runtimeNamed } from "./runtimes.js";
import { type ExecutionRequest, type ExecutionResult, emptyResult, type Sandbox } from "./sandbox.js";
import { SCRATCH_BYTES } from "./sandbox-env.js";
import { dockerSeccompProfile, loadSyscallFilter } from "./syscall-filter.js";

export type DockerOptions = {
  /** The daemon's socket. Default /var/run/docker.sock. */
  socketPath?: string;
  /** The image of each task runtime, by ID (`sha256:…`, as build-image.sh prints it). */
  images: Readonly<Record<RuntimeName, string>>;
  /** The OCI runtime of every container, e.g. "runsc" (gVisor); absent: the daemon's default. */
  ociRuntime?: string | undefined;
  /** cgroup memory limit of each container (memory + swap). */
  containerMemoryBytes: number;
  /** CPU quota of each container, in CPUs. */
  cpusPerContainer: number;
  /** Processes and threads a run may have alive at once (limits.tests.maxProcesses): a fork-server container's pids limit, with room for the server. */
  maxProcesses: number;
  /** Size of each container's /tmp. Default 128 MiB, as bwrap's scratch. */
  scratchBytes?: number;
};

const DEFAULT_SOCKET = "/var/run/docker.sock";
/** The tag sandbox/docker/build-image.sh gives the image of runtime NAME. */
export const imageTag = (runtime: RuntimeName) => `minedit-sandbox:${runtime}`;

/** Why runtime NAME cannot run on Docker when it has no image, and what to do: a sentence beginning `runtime "NAME"`. */
export const noImageMessage = (runtime: RuntimeName) =>
  `runtime "${runtime}" has no Docker image: build it with \`bash sandbox/docker/build-image.sh ${runtime}\`` +
  ` and pin the ID it prints in sandbox.docker.images.${runtime}`;
/** Processes and threads a fork-server container may hold beyond a run's own limit (itself, the client). */
const CONTAINER_PIDS_SLACK = 8;

const DIAGNOSTICS_CAP_CHARS = 64 * 1024;
/** How long a container's attach stream may take to end after its exit (its last output in flight). */
const STREAM_DRAIN_MS = 2_000;
/**
 * How long the daemon may take to make and start a run's container before the run is an infra fault. On
 * the vfs storage driver making one copies the image: ~16 s for the 917 MB lint image alone here, several
 * times that with a few at once on a loaded machine.
 */
const CONTAINER_SETUP_MS = 300_000;

/** Where a fork-server container sees the directory of its control socket. */
const CONTROL_DIR = "/run/minedit";
const CONTROL_SOCKET = "control.sock";

function unavailable(message: string): MineditError {
  return new MineditError(ErrorCode.Unavailable, `docker sandbox: ${message}`);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A frame of the fork server's control channel (fork-server.ts): kind, 4-byte length, payload. */
function frame(kind: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(kind, 0, "latin1");
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** A writable that keeps the first {@link DIAGNOSTICS_CAP_CHARS} characters written to it. */
function diagnostics(): { sink: Writable; text: () => string } {
  let text = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (text.length < DIAGNOSTICS_CAP_CHARS) text += chunk.toString("utf8");
      done();
    },
  });
  return { sink, text: () => text };
}

export class DockerSandbox implements Sandbox, ForkServerHost {
  readonly name: string;
  private readonly owner = ownerLabel(hostname(), process.pid);
  /** Containers this sandbox made and has not yet removed, with how to remove them. */
  private readonly live = new Map<Docker.Container, () => Promise<void>>();
  private closed = false;

  private constructor(
    private readonly docker: Docker,
    private readonly options: DockerOptions,
    /** The seccomp profile of every container, as JSON (syscall-filter.ts). */
    private readonly seccompProfile: string,
  ) {
    this.name = options.ociRuntime === undefined ? "docker" : `docker+${options.ociRuntime}`;
  }

  /**
   * Connects to the daemon, checks the configured images (present, and built for the runtime their key
   * names) and OCI runtime, builds the containers' seccomp profile, and removes this host's orphaned
   * containers. Rejects with `MineditError(Unavailable)` saying what to do when any of it is missing.
   */
  static async create(options: DockerOptions): Promise<DockerSandbox> {
    const socketPath = options.socketPath ?? DEFAULT_SOCKET;
    const docker = new Docker({ socketPath });
    try {
      await docker.ping();
    } catch (error) {
      throw unavailable(
        `the Docker daemon at ${socketPath} does not answer (${messageOf(error)}); start it, e.g. ` +
          "`dockerd --storage-driver=vfs --bridge=none --iptables=false` (docs/sandbox.md#docker)",
      );
    }
    if (options.ociRuntime !== undefined) {
      const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
      if (info.Runtimes?.[options.ociRuntime] === undefined) {
        throw unavailable(
          `the Docker daemon has no OCI runtime "${options.ociRuntime}" (it has ${Object.keys(info.Runtimes ?? {}).join(", ")}); ` +
            `start dockerd with --add-runtime ${options.ociRuntime}=/usr/bin/${options.ociRuntime}`,
        );
      }
    }
    for (const [runtime, id] of Object.entries(options.images)) {
      let labels: Record<string, string> | undefined;
      try {
        labels = (await docker.getImage(id).inspect()).Config?.Labels ?? undefined;
      } catch (error) {
        throw unavailable(
          `the image of runtime "${runtime}" (${id}) is not in the daemon (${messageOf(error)}): build it with ` +
            `\`bash sandbox/docker/build-image.sh ${runtime}\` and pin the ID it prints in sandbox.docker.images.${runtime}`,
        );
      }
      const built = labels?.["minedit.runtime"];
      if (built !== undefined && built !== runtime) {
        throw unavailable(`the image ${id} was built for runtime "${built}", not "${runtime}"`);
      }
    }
    // The sandbox's syscall filter, from the names the host's libseccomp knows (Unavailable, saying what to
    // install, without python3-seccomp: never left out). Under gVisor runsc compiles it itself
    // (ensure-docker.sh registers runsc with --oci-seccomp), with its own idea of errno actions.
    const { knownSyscalls } = await loadSyscallFilter();
    const profile = dockerSeccompProfile(knownSyscalls, { gvisor: options.ociRuntime === "runsc" });
    const sandbox = new DockerSandbox(docker, options, JSON.stringify(profile));
    await sandbox.reapOrphans();
    return sandbox;
  }

  /** The ID of the image tagged `tag` in the daemon at `socketPath`, or undefined (none, or no daemon). */
  static async taggedImage(tag: string, socketPath = DEFAULT_SOCKET): Promise<string | undefined> {
    try {
      return (await new Docker({ socketPath }).getImage(tag).inspect()).Id;
    } catch {
      return undefined;
    }
  }

  /** Removes the containers of servers of this host that are no longer running; returns how many. */
  async reapOrphans(): Promise<number> {
    const containers = await this.docker.listContainers({
      all: true,
      filters: { label: [OWNER_LABEL] },
    });
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "EPERM";
      }
    };
    const orphans = containers.filter((c) => isOrphan(c.Labels?.[OWNER_LABEL], hostname(), alive));
    await Promise.all(
      orphans.map((c) =>
        this.docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => undefined),
      ),
    );
    return orphans.length;
  }

  /** The runtime `name`, when an image is configured for it (`FailedPrecondition` saying how, if not). */
  async runtime(name: RuntimeName = DEFAULT_RUNTIME): Promise<Runtime> {
    const runtime = runtimeNamed(name);
    if (this.options.images[name] === undefined) {
      throw new MineditError(ErrorCode.FailedPrecondition, noImageMessage(name), { field: "runtime" });
    }
    return runtime;
  }

  private spec(runtime: Runtime, role: ContainerSpec["role"], cmd: string[], pids: number): ContainerSpec {
    return {
      image: this.options.images[runtime.name] as string,
      cmd,
      role,
      owner: this.owner,
      env: runtime.env,
      binds: dataBinds(runtime).flatMap(({ source, target }) =>
        source === null ? [] : [{ source, target }],
      ),
      memoryBytes: this.options.containerMemoryBytes,
      pidsLimit: pids,
      cpus: this.options.cpusPerContainer,
      scratchBytes: this.options.scratchBytes ?? SCRATCH_BYTES,
      ociRuntime: this.options.ociRuntime,
      seccompProfile: this.seccompProfile,
    };
  }

  /**
   * A container, attached (stdin in, stdout and stderr demultiplexed to the given streams) and started;
   * `exited` resolves once it has ended and is removed, saying whether this side asked for the end.
   */
  private startContainer(
    spec: ContainerSpec,
    stdin: PassThrough,
    stdout: Writable,
    stderr: Writable,
    beforeStart: Promise<void> = Promise.resolve(),
    onStarted: () => void = () => {},
  ): {
    container: Promise<Docker.Container>;
    exited: Promise<{ code: number | null; started: boolean; outside: string | null }>;
    kill: () => void;
  } {
    let requested = false;
    let started = false;
    let made: Docker.Container | null = null;
    const remove = async () => {
      if (made === null) return;
      await made.remove({ force: true }).catch(() => undefined);
    };
    const kill = () => {
      requested = true;
      void remove();
    };
    const container = (async () => {
      if (this.closed) throw unavailable("the sandbox is closed");
      made = await this.docker.createContainer(containerOptions(spec));
      this.live.set(made, remove);
      return made;
    })();
    const exited = (async () => {
      let c: Docker.Container;
      try {
        c = await container;
      } catch (error) {
        stderr.write(`cannot create the container: ${messageOf(error)}\n`);
        return { code: null, started: false, outside: null };
      }
      try {
        const stream = await c.attach({
          stream: true,
          stdin: true,
          stdout: true,
          stderr: true,
          hijack: true,
        });
        this.docker.modem.demuxStream(stream, stdout, stderr);
        // Not ended with stdin: half-closing a hijacked attach connection ends its output too.
        stdin.pipe(stream, { end: false });
        // The container's last output may arrive after its exit is reported: its end is awaited below
        // (bounded: a daemon that went away never sends it).
        const drained = new Promise<void>((resolve) => {
          stream.once("end", resolve);
          stream.once("close", resolve);
          stream.once("error", () => resolve());
        });
        const waited = c.wait({ condition: "next-exit" });
        await beforeStart;
        if (requested) return { code: null, started: false, outside: null };
        await c.start();
        started = true;
        onStarted();
        const { code, lost } = await this.exitOf(c, waited, drained);
        let outside: string | null = null;
        if (!requested && lost !== null) outside = `lost the Docker daemon (${lost})`;
        else if (!requested && (code === 137 || code === 143))
          outside = `the container was killed (status ${code})`;
        await Promise.race([drained, sleep(STREAM_DRAIN_MS)]);
        return { code, started, outside };
      } catch (error) {
        stderr.write(`cannot start the container: ${messageOf(error)}\n`);
        return { code: null, started, outside: started && !requested ? messageOf(error) : null };
      } finally {
        stdin.unpipe();
        await remove();
        this.live.delete(c);
      }
    })();
    return { container, exited, kill };
  }

  /**
   * How a started container ended: its status, or why it is not known (`lost`: the daemon went away). The
   * wait request alone is not enough: when the daemon dies after answering its headers, dockerode's
   * request never settles; the attach stream does end then, and the daemon is asked once more.
   */
  private async exitOf(
    c: Docker.Container,
    waited: Promise<unknown>,
    streamEnded: Promise<void>,
  ): Promise<{ code: number | null; lost: string | null }> {
    const status = (w: unknown) => ({ code: (w as { StatusCode?: number }).StatusCode ?? null, lost: null });
    const exit = waited.then(status, (error: unknown) => ({ code: null, lost: messageOf(error) }));
    const first = await Promise.race([exit, streamEnded.then(() => null)]);
    if (first !== null) return first;
    const soon = await Promise.race([exit, sleep(STREAM_DRAIN_MS).then(() => null)]);
    if (soon !== null) return soon;
    try {
      const state = (await c.inspect()).State;
      if (!state.Running) return { code: state.ExitCode, lost: null };
      return await exit; // still running, its output stream closed: wait for it
    } catch (error) {
      return { code: null, lost: messageOf(error) };
    }
  }

  /** The fork server in a container of its own: its init, with the harness as the first frame on stdin. */
  launchForkServer(source: string, harness: string, settings: string, runtime: Runtime): LaunchedProgram {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const outputs = [new PassThrough(), new PassThrough()] as const;
    const notes = diagnostics();
    stdin.write(frame("H", Buffer.from(harness, "utf8")));
    // The control channel: a unix socket of this process, bind-mounted read-only into the container,
    // that takes the fork server's one connection and then stops listening (a program inside that tries
    // it later is refused). The container's own stdout and stderr are the runs' output pipes.
    const dir = mkdtempSync(join(tmpdir(), "minedit-docker-"));
    chmodSync(dir, 0o755);
    const control = createServer();
    control.once("connection", (socket) => {
      control.close();
      socket.on("error", () => {});
      socket.pipe(stdout);
      stdin.pipe(socket);
    });
    const listening = new Promise<void>((resolve, reject) => {
      control.once("error", reject);
      control.listen(join(dir, CONTROL_SOCKET), () => {
        // The fork server runs as nobody.
        chmodSync(join(dir, CONTROL_SOCKET), 0o666);
        resolve();
      });
    });
    // Under gVisor the fork server tolerates the one rlimit runsc refuses (forkserver.py, "gvisor").
    const kernel =
      this.options.ociRuntime === "runsc"
        ? JSON.stringify({ ...JSON.parse(settings), gvisor: true })
        : settings;
    const cmd = ["python3", "-s", "-c", source, kernel, "docker", `${CONTROL_DIR}/${CONTROL_SOCKET}`];
    // The process limit of every run in it: the container's pids cgroup (fixed when it is made, so the
    // configured limit, not a request's), not RLIMIT_NPROC, which counts the uid's processes host-wide.
    const spec = this.spec(runtime, "fork-server", cmd, this.options.maxProcesses + CONTAINER_PIDS_SLACK);
    spec.binds = [...spec.binds, { source: dir, target: CONTROL_DIR }];
    // The runs' stderr, whose first bytes (the fork server's own messages, when it fails) are kept too.
    const errors = new Writable({
      write(chunk: Buffer, _encoding, done) {
        notes.sink.write(chunk);
        outputs[1].write(chunk, done);
      },
    });
    const { exited, kill } = this.startContainer(spec, new PassThrough(), outputs[0], errors, listening);
    const gone = exited.then(({ code, started, outside }) => {
      control.close();
      rmSync(dir, { recursive: true, force: true });
      return { code, signal: null, started, ...(outside === null ? {} : { outside }) };
    });
    return {
      controlIn: stdin,
      controlOut: stdout,
      outputs: [...outputs],
      exited: gone,
      stderr: notes.text,
      kill,
    };
  }

  /**
   * One run in a fresh container of its own (for what the fork servers do not run: argv other than
   * `python3 -s …`, or `warmInterpreters: false`): sandbox/python/docker-boot.py writes the files, sets the
   * limits and runs argv as the container's init would.
   */
  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    if (this.closed) throw unavailable("the sandbox is closed");
    checkLimits(request.limits);
    const runtime = await this.runtime(request.runtime);
    if (request.signal?.aborted) return emptyResult({ cancelled: true, wallTimeMs: 0 });
    const { header, body } = bootRequest(request);
    const stdin = new PassThrough();
    stdin.end(body);
    let killed = false;
    const notes = diagnostics();
    const output = new OutputCollector(request.limits.maxOutputBytes, () => kill());
    const stdout = new Writable({
      write(chunk: Buffer, _e, done) {
        output.add("stdout", chunk);
        done();
      },
    });
    const stderr = new Writable({
      write(chunk: Buffer, _e, done) {
        output.add("stderr", chunk);
        done();
      },
    });
    const spec = this.spec(
      runtime,
      "run",
      ["python3", "-s", "-c", DOCKER_BOOT_SOURCE, header],
      request.limits.maxProcesses + CONTAINER_PIDS_SLACK,
    );
    const kill = () => {
      killed = true;
      box.kill();
    };
    // The wall-time limit and wallTimeMs count from the container's start: making it is the daemon's
    // latency, not the program's time (run-deadline.ts).
    const deadline = new RunDeadline(request.limits.wallTimeMs, request.signal, kill, {
      setupMs: CONTAINER_SETUP_MS,
    });
    let started = performance.now();
    const box = this.startContainer(spec, stdin, stdout, stderr, undefined, () => {
      started = performance.now();
      deadline.started();
    });
    const end = await box.exited;
    deadline.dispose();
    const { timedOut, cancelled } = deadline;
    const wallTimeMs = Math.round(performance.now() - started);
    if (end.outside !== null) throw unavailable(`the run's container ended from outside: ${end.outside}`);
    if (!end.started) {
      if (cancelled) return emptyResult({ cancelled: true, wallTimeMs: 0 });
      if (deadline.setupTimedOut) {
        throw unavailable(
          `the Docker daemon did not start the run's container within ${CONTAINER_SETUP_MS} ms`,
        );
      }
      throw unavailable(
        `the run's container did not start: ${notes.text().trim() || output.text("stderr").trim()}`,
      );
    }
    if (!killed && bootFailed(end.code, output.text("stderr"))) {
      throw unavailable(`the run's container could not set up: ${output.text("stderr").trim()}`);
    }
    return bootResult(end.code, {
      stdout: output.text("stdout"),
      stderr: output.text("stderr"),
      truncated: output.truncated,
      killed,
      timedOut: timedOut && !cancelled,
      cancelled,
      wallTimeMs,
      cpuLimited: request.limits.cpuTimeMs !== undefined,
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.live.values()].map((remove) => remove()));
  }
}
