/**
 * What the installed dockerode and docker-modem do for the calls of the Docker backend
 * (src/sandbox/docker.ts), offline: the REAL dockerode against a fake daemon (a node:http server on a unix
 * socket that records every request), so the adapter's assumptions about its library are checked without a
 * dockerd, and a dockerode upgrade that changes one of them fails here rather than only against a daemon
 * (docker.test.ts). Mirrored from upstream, dockerode 5.0.1 (apocas/dockerode, tag v5.0.1, commit
 * 3624bc02dfc60afdf9b59ade72d34a9b2f2edd5d) and docker-modem 5.0.7 (apocas/docker-modem, tag v5.0.7, commit
 * 5dc56742059c7f9d73691d3aeb9f012f8f01b156), byte for byte the files in node_modules:
 *
 * - attach with `hijack: true` (dockerode lib/container.js:737-770) is sent with `Connection: Upgrade` and
 *   `Upgrade: tcp` (docker-modem lib/modem.js:228-231) and resolves with the raw socket only on the
 *   daemon's 101, the bytes that came after its headers unshifted back into it (modem.js:304-315); as
 *   `stdin: true` makes it `openStdin`, the request is never ended (modem.js:376-378): the socket is
 *   the container's stdin. (The options also go, ahead of it, as a JSON body with a Content-Length —
 *   modem.js:207-223 — which the daemon drops when it hijacks the connection; not asserted here.)
 * - modem.demuxStream (modem.js:440-504): 8-byte headers (byte 0 the stream, bytes 4-7 the big-endian
 *   length), reassembled across chunks; stream 1 to stdout, any other (2, and 0) to stderr; it never ends
 *   stdout or stderr, which is why docker.ts awaits the attach stream's own end.
 * - wait (container.js:777-808) is an ordinary request whose promise settles only on the response's `end`
 *   or the request's `error` (modem.js:339-365): when the daemon dies after sending the headers, neither
 *   comes and it never settles — DockerSandbox.exitOf races it against the attach stream's end and asks
 *   inspect().
 * - createContainer (dockerode lib/docker.js:44-79) POSTs the options as the JSON body, untouched
 *   (modem.js:207-218), and resolves with getContainer(Id) (docker.js:70) without asking anything more.
 *   (docker-modem also puts every option in the query string, objects JSON-encoded and arrays repeated —
 *   modem.js:160-166, 559-575; the daemon ignores them, and they are not asserted here.)
 * - listContainers (docker.js:455-485) puts `filters` in the query as a JSON string (modem.js:563-568);
 *   remove (container.js:815-847) DELETEs with `force` in the query; start (container.js:388-420) POSTs
 *   no body (an empty options object is not sent, modem.js:212-216); getImage(id).inspect() (lib/image.js:
 *   21-51) GETs /images/{id}/json; ping (docker.js:1393-1421) GETs /_ping.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import Docker from "dockerode";
import { afterEach, describe, expect, test } from "vitest";
import {
  type ContainerSpec,
  containerOptions,
  OWNER_LABEL,
  ownerLabel,
} from "../../src/sandbox/docker-spec.js";
import { dockerSeccompProfile } from "../../src/sandbox/syscall-filter.js";

type Recorded = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

/** One multiplexed frame of an attach stream: stream type, three zero bytes, big-endian length, payload. */
function muxFrame(stream: 0 | 1 | 2, payload: string): Buffer {
  const data = Buffer.from(payload, "utf8");
  const header = Buffer.alloc(8);
  header.writeUInt8(stream, 0);
  header.writeUInt32BE(data.length, 4);
  return Buffer.concat([header, data]);
}

/** A writable that keeps what is written to it, as text. */
function collector(): { sink: Writable; text: () => string } {
  let text = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString("utf8");
      done();
    },
  });
  return { sink, text: () => text };
}

/** Settles within `ms`, or says it is still pending. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<string> {
  return Promise.race([
    promise.then(
      () => "resolved",
      () => "rejected",
    ),
    sleep(ms).then(() => "pending"),
  ]);
}

type Daemon = { docker: Docker; requests: Recorded[] };
const opened: { server: Server; sockets: Set<Socket>; dir: string }[] = [];

/**
 * A fake daemon on a unix socket in a fresh temporary directory: `route` answers each plain request once
 * its body is in, `upgrade` each upgrade request (with the bytes that followed its headers).
 */
async function fakeDaemon(
  route: (request: Recorded, res: ServerResponse) => void,
  upgrade?: (request: Recorded, socket: Socket) => void,
): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), "minedit-dockerode-"));
  const socketPath = join(dir, "docker.sock");
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      route(recorded, res);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  if (upgrade !== undefined) {
    server.on("upgrade", (req, socket: Socket, head: Buffer) => {
      const recorded = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: head.toString("utf8"),
      };
      requests.push(recorded);
      upgrade(recorded, socket);
    });
  }
  opened.push({ server, sockets, dir });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolve);
  });
  return { docker: new Docker({ socketPath }), requests };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};

afterEach(async () => {
  for (const { server, sockets, dir } of opened.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("dockerode 5.0.1 / docker-modem 5.0.7 as docker.ts uses them", () => {
  test("attach with hijack sends Connection: Upgrade / Upgrade: tcp and resolves with the raw socket only on the daemon's 101, the bytes after its headers first", async () => {
    let upgraded: Socket | undefined;
    const { docker, requests } = await fakeDaemon(
      (_request, res) => json(res, 500, { message: "not an upgrade" }),
      (_request, socket) => {
        upgraded = socket;
      },
    );
    const attached = docker.getContainer("c1").attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    });
    // The daemon has the request but has not answered: no stream yet.
    expect(await settledWithin(attached, 200)).toBe("pending");
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(
      "/containers/c1/attach?stream=true&stdin=true&stdout=true&stderr=true&hijack=true",
    );
    expect(request?.headers.connection).toBe("Upgrade");
    expect(request?.headers.upgrade).toBe("tcp");

    // The 101 and the container's first output in one write, as a daemon may send them.
    upgraded?.write(
      Buffer.concat([
        Buffer.from(
          "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n" +
            "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n",
          "latin1",
        ),
        muxFrame(1, "hello from the container\n"),
      ]),
    );
    const stream = await attached;
    expect(stream.constructor.name).toBe("Socket");
    const first = await new Promise<Buffer>((resolve) => stream.once("data", resolve));
    expect(first.subarray(0, 8 + 25)).toEqual(muxFrame(1, "hello from the container\n"));

    // What is written to it reaches the daemon's side raw: it is the container's stdin.
    const received = new Promise<Buffer>((resolve) => upgraded?.once("data", resolve));
    stream.write("H frame");
    expect((await received).toString("utf8")).toContain("H frame");
  });

  test("demuxStream reassembles frames split across chunks (headers too) and packed in one chunk: 1 to stdout, 2 and 0 to stderr, and never ends either", async () => {
    const { docker } = await fakeDaemon((_request, res) => json(res, 404, {}));
    const source = new PassThrough();
    const stdout = collector();
    const stderr = collector();
    docker.modem.demuxStream(source, stdout.sink, stderr.sink);
    const bytes = Buffer.concat([
      muxFrame(1, "out one;"),
      muxFrame(2, "err one;"),
      muxFrame(1, "out two;"),
      muxFrame(0, "stdin-typed;"),
      muxFrame(2, "err two;"),
    ]);
    // A header cut after 3 bytes, a payload cut in two, then the rest in one chunk of several frames.
    for (const chunk of [bytes.subarray(0, 3), bytes.subarray(3, 12), bytes.subarray(12)]) {
      source.write(chunk);
      await sleep(5);
    }
    expect(stdout.text()).toBe("out one;out two;");
    expect(stderr.text()).toBe("err one;stdin-typed;err two;");

    const ended = new Promise<void>((resolve) => source.once("end", resolve));
    source.end();
    await ended;
    await sleep(20);
    expect(stdout.sink.writableEnded).toBe(false);
    expect(stderr.sink.writableEnded).toBe(false);
  });

  test("wait with condition next-exit POSTs /containers/{id}/wait?condition=next-exit and resolves with the parsed body", async () => {
    const { docker, requests } = await fakeDaemon((_request, res) =>
      json(res, 200, { StatusCode: 3, Error: null }),
    );
    const result = await docker.getContainer("c2").wait({ condition: "next-exit" });
    expect(result).toEqual({ StatusCode: 3, Error: null });
    expect(requests.map(({ method, url }) => `${method} ${url}`)).toEqual([
      "POST /containers/c2/wait?condition=next-exit",
    ]);
  });

  test("wait never settles when the daemon sends the headers and then drops the connection (why exitOf races it against the attach stream's end)", async () => {
    let dropped = false;
    const { docker, requests } = await fakeDaemon((_request, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.flushHeaders();
      setTimeout(() => {
        dropped = true;
        res.socket?.destroy();
      }, 50);
    });
    // docker.ts relies on this: neither a resolution nor a rejection comes, so DockerSandbox.exitOf
    // does not await the wait alone but races it against the attach stream's end and then inspect()s.
    const waited = docker.getContainer("c3").wait({ condition: "next-exit" });
    expect(await settledWithin(waited, 500)).toBe("pending");
    expect(dropped).toBe(true);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe("/containers/c3/wait?condition=next-exit");
  });

  test("createContainer POSTs containerOptions(spec) as the JSON body untouched and resolves with a Container of the returned Id, asking nothing more", async () => {
    const id = "f00d".repeat(16);
    const { docker, requests } = await fakeDaemon((_request, res) =>
      json(res, 201, { Id: id, Warnings: [] }),
    );
    // As DockerSandbox.spec() builds it for a fork server under gVisor.
    const spec: ContainerSpec = {
      image: `sha256:${"b".repeat(64)}`,
      cmd: ["python3", "-s", "-c", "pass", "{}", "docker", "/run/minedit/control.sock"],
      role: "fork-server",
      owner: ownerLabel(hostname(), process.pid),
      env: { MPLBACKEND: "Agg" },
      binds: [
        { source: "/srv/nltk_data", target: "/opt/minedit/nltk_data" },
        { source: "/tmp/minedit-docker-x", target: "/run/minedit" },
      ],
      memoryBytes: 1024 ** 3,
      pidsLimit: 72,
      cpus: 1.5,
      scratchBytes: 128 * 1024 * 1024,
      ociRuntime: "runsc",
      seccompProfile: JSON.stringify(
        dockerSeccompProfile(["read", "write", "prctl", "clone3"], { gvisor: true }),
      ),
    };
    const options = containerOptions(spec);
    const expected = JSON.parse(JSON.stringify(options));
    const container = await docker.createContainer(options);
    expect(container.id).toBe(id);
    await sleep(100);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe("POST");
    expect(request?.url.startsWith("/containers/create?")).toBe(true);
    expect(request?.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(request?.body ?? "null");
    expect(body).toEqual(expected);
    expect(body.HostConfig.Tmpfs).toEqual(options.HostConfig?.Tmpfs);
    expect(body.Labels).toEqual({ [OWNER_LABEL]: spec.owner, "minedit.sandbox.role": "fork-server" });
    expect(body.HostConfig).toMatchObject({
      NetworkMode: "none",
      ReadonlyRootfs: true,
      // Its mount options are docker-spec.test.ts's business; here, that they arrive as made.
      Tmpfs: {
        "/tmp": expect.stringContaining("size=134217728"),
        "/dev/shm": expect.stringMatching(/size=\d+/),
      },
      Memory: 1024 ** 3,
      MemorySwap: 1024 ** 3,
      PidsLimit: 72,
      NanoCpus: 1_500_000_000,
      CapDrop: ["ALL"],
      // The seccomp profile travels inline, as the daemon reads it (and the docker CLI sends a file's content).
      SecurityOpt: ["no-new-privileges", `seccomp=${spec.seccompProfile}`],
      IpcMode: "private",
      LogConfig: { Type: "none", Config: {} },
      Runtime: "runsc",
      Binds: ["/srv/nltk_data:/opt/minedit/nltk_data:ro", "/tmp/minedit-docker-x:/run/minedit:ro"],
    });
  });

  test("listContainers sends filters as a JSON query string, remove force DELETEs, start POSTs no body, image inspect GETs /images/{id}/json, ping GETs /_ping", async () => {
    const image = `sha256:${"c".repeat(64)}`;
    const { docker, requests } = await fakeDaemon((request, res) => {
      const route = `${request.method} ${request.url.split("?")[0]}`;
      if (route === "GET /containers/json") {
        json(res, 200, [{ Id: "orphan1", Labels: { [OWNER_LABEL]: "host:1" } }]);
      } else if (route === "DELETE /containers/orphan1" || route === "POST /containers/orphan1/start") {
        res.writeHead(204).end();
      } else if (route === `GET /images/${image}/json`) {
        json(res, 200, { Id: image, Config: { Labels: { "minedit.runtime": "python" } } });
      } else if (route === "GET /_ping") {
        res.writeHead(200, { "Content-Type": "text/plain" }).end("OK");
      } else {
        json(res, 404, { message: `no route ${route}` });
      }
    });

    const listed = await docker.listContainers({ all: true, filters: { label: [OWNER_LABEL] } });
    expect(listed.map((c) => c.Id)).toEqual(["orphan1"]);
    await docker.getContainer("orphan1").remove({ force: true });
    await docker.getContainer("orphan1").start();
    const inspected = await docker.getImage(image).inspect();
    expect(inspected.Config.Labels).toEqual({ "minedit.runtime": "python" });
    const pong: unknown = await docker.ping();
    expect(String(pong)).toBe("OK");

    expect(requests.map(({ method, url }) => `${method} ${url.split("?")[0]}`)).toEqual([
      "GET /containers/json",
      "DELETE /containers/orphan1",
      "POST /containers/orphan1/start",
      `GET /images/${image}/json`,
      "GET /_ping",
    ]);
    const list = new URL(requests[0]?.url ?? "", "http://docker");
    expect(list.searchParams.get("all")).toBe("true");
    expect(list.searchParams.get("filters")).toBe(JSON.stringify({ label: [OWNER_LABEL] }));
    expect(JSON.parse(list.searchParams.get("filters") ?? "null")).toEqual({ label: [OWNER_LABEL] });
    expect(requests[1]?.url).toBe("/containers/orphan1?force=true");
    expect(requests[2]?.url).toBe("/containers/orphan1/start");
    expect(requests[2]?.body).toBe("");
    expect(requests[2]?.headers["content-type"]).toBeUndefined();
    expect(requests[3]?.url).toBe(`/images/${image}/json`);
    expect(requests[4]?.url).toBe("/_ping");
  });
});
