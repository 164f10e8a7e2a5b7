/**
 * gRPC server reflection (v1 and v1alpha, via `@grpc/reflection`), so `grpcurl` and friends can list
 * and call our methods without a copy of the .proto files.
 *
 * `@grpc/reflection` reads file descriptors from a proto-loader "package definition"; only the
 * `fileDescriptorProtos` of its entries are used. We build those entries from the descriptors embedded in
 * the protobuf-es generated code instead of loading the .proto files again at run time: reflection then
 * describes exactly the schema the server speaks, and the server needs no proto/ directory when deployed.
 *
 * The library is loaded by the first reflection call, not when the server starts: its import and set-up
 * (protobufjs, proto-loader parsing its two reflection.proto files, the index of our descriptors) were
 * ~75 ms of `minedit serve`'s start on 2 cores, for a service no trainer calls. Both methods are
 * registered at once with their messages as bytes; a call's messages wait for the library, then go
 * through the codec and the handler that `ReflectionService.addToServer` registers (grpc/grpc-node at
 * @grpc/reflection@1.0.4, 0ae86b13f0b3: packages/grpc-reflection/src/implementations/reflection-v1.ts and
 * reflection-v1alpha.ts `addToServer`: one bidirectional method, a response written per request, the end
 * answered with the end; tests/server/health-reflection.test.ts mirrors it).
 */
import { EventEmitter } from "node:events";
import type { DescFile } from "@bufbuild/protobuf";
import type { Server, ServerDuplexStream, ServiceDefinition, UntypedHandleCall } from "@grpc/grpc-js";

const VERSIONS = ["v1", "v1alpha"] as const;
type Version = (typeof VERSIONS)[number];

/** What `ReflectionService.addToServer` registers for one version: the method's codec and handler. */
type Registered = {
  decode: (bytes: Buffer) => unknown;
  encode: (message: unknown) => Buffer;
  handler: (stream: ServerDuplexStream<unknown, unknown>) => void;
};

/** Every file in `files` and, transitively, the files they import (reflection serves those too). */
function withDependencies(files: readonly DescFile[]): DescFile[] {
  const out = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    if (out.has(file.name)) return;
    out.set(file.name, file);
    for (const dep of file.dependencies) visit(dep);
  };
  for (const file of files) visit(file);
  return [...out.values()];
}

/** Loads @grpc/reflection over `files` and captures what it would register, by version. */
async function loadReflection(files: readonly DescFile[]): Promise<Record<Version, Registered>> {
  const [{ ReflectionService }, { toBinary }, { FileDescriptorProtoSchema }] = await Promise.all([
    import("@grpc/reflection"),
    import("@bufbuild/protobuf"),
    import("@bufbuild/protobuf/wkt"),
  ]);
  const definition: ConstructorParameters<typeof ReflectionService>[0] = {};
  for (const file of withDependencies(files)) {
    definition[file.proto.name] = {
      // The entry shape of a message type in a proto-loader package definition; only the descriptors matter.
      format: "Protocol Buffer 3 DescriptorProto",
      type: {},
      fileDescriptorProtos: [Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto))],
    };
  }
  const registered: Partial<Record<Version, Registered>> = {};
  new ReflectionService(definition).addToServer({
    addService(service: ServiceDefinition, handlers: Record<string, UntypedHandleCall>) {
      const method = service.ServerReflectionInfo;
      const handler = handlers.ServerReflectionInfo;
      const version = VERSIONS.find((v) => method?.path === methodPath(v));
      if (method === undefined || handler === undefined || version === undefined) {
        throw new Error(
          `@grpc/reflection registered an unexpected service: ${Object.keys(service).join(", ")}`,
        );
      }
      registered[version] = {
        decode: (bytes) => method.requestDeserialize(bytes),
        encode: (message) => method.responseSerialize(message),
        handler: handler as Registered["handler"],
      };
    },
  });
  if (registered.v1 === undefined || registered.v1alpha === undefined) {
    throw new Error("@grpc/reflection did not register both reflection versions");
  }
  return registered as Record<Version, Registered>;
}

const methodPath = (version: Version) => `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`;

/** One version's method with its messages as bytes: decoded and encoded by the loaded library. */
function rawMethod(version: Version): ServiceDefinition {
  const bytes = (b: Buffer) => b;
  return {
    ServerReflectionInfo: {
      path: methodPath(version),
      requestStream: true,
      responseStream: true,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
      originalName: "serverReflectionInfo",
    },
  };
}

/**
 * The library's handler on a stream of bytes: a stand-in stream that emits decoded requests and encodes
 * what the handler writes. Requests that came before the library was loaded are emitted in order first.
 */
function serve(stream: ServerDuplexStream<Buffer, Buffer>, loaded: Promise<Registered>): void {
  const pending: ({ kind: "data"; bytes: Buffer } | { kind: "end" })[] = [];
  let inner: EventEmitter | null = null;
  let registered: Registered | null = null;
  const deliver = (event: (typeof pending)[number]) => {
    const target = inner as EventEmitter;
    if (event.kind === "end") target.emit("end");
    else target.emit("data", (registered as Registered).decode(event.bytes));
  };
  stream.on("data", (bytes: Buffer) => {
    if (inner === null) pending.push({ kind: "data", bytes });
    else deliver({ kind: "data", bytes });
  });
  stream.on("end", () => {
    if (inner === null) pending.push({ kind: "end" });
    else deliver({ kind: "end" });
  });
  loaded.then(
    (library) => {
      registered = library;
      const emitter = new EventEmitter();
      const standIn = Object.assign(emitter, {
        write: (message: unknown) => stream.write(library.encode(message)),
        end: () => stream.end(),
      });
      library.handler(standIn as unknown as ServerDuplexStream<unknown, unknown>);
      inner = emitter;
      for (const event of pending.splice(0)) deliver(event);
    },
    (error: unknown) => {
      stream.destroy(error instanceof Error ? error : new Error(String(error)));
    },
  );
}

/**
 * Adds the reflection services to `server`, describing the services of `files` (protobuf-es `file_*`
 * descriptors, e.g. `file_minedit_v1_reward`). The library loads on the first reflection call.
 */
export function addReflection(server: Pick<Server, "addService">, files: readonly DescFile[]): void {
  let library: Promise<Record<Version, Registered>> | null = null;
  const load = () => {
    if (library === null) {
      const loading = loadReflection(files);
      // A failed load is tried again by the next call.
      loading.catch(() => {
        if (library === loading) library = null;
      });
      library = loading;
    }
    return library;
  };
  for (const version of VERSIONS) {
    server.addService(rawMethod(version), {
      ServerReflectionInfo: (stream: ServerDuplexStream<Buffer, Buffer>) =>
        serve(
          stream,
          load().then((registered) => registered[version]),
        ),
    });
  }
}
