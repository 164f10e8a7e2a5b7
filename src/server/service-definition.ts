/**
 * grpc-js service definitions built from protobuf-es service descriptors, so the generated code in
 * `src/gen/` is the single source of the wire format for both our server and our clients (no
 * proto-loader, no second code generator). A grpc-js definition is a path plus four (de)serializers per
 * method; protobuf-es supplies the schemas and `toBinary`/`fromBinary`.
 */
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import type { MethodDefinition } from "@grpc/grpc-js";

/** The grpc-js method definitions of a service, keyed by protobuf-es local method name (`scoreBatch`). */
export type GrpcServiceDefinition<S extends GenServiceMethods> = {
  readonly [K in keyof S]: MethodDefinition<MessageShape<S[K]["input"]>, MessageShape<S[K]["output"]>>;
};

/**
 * A request as a server handler receives it: decoded, or the reason it could not be.
 *
 * grpc-js answers a request whose deserializer throws with `INTERNAL` ("Error deserializing request"),
 * which blames the server for a client's malformed bytes. Server definitions therefore never throw while
 * decoding; the handler turns `{ ok: false }` into `INVALID_ARGUMENT` (see `requireDecoded`).
 */
export type Decoded<T> = { ok: true; message: T } | { ok: false; error: string };

/** Server-side method definitions: requests arrive as {@link Decoded} values. */
export type GrpcServerServiceDefinition<S extends GenServiceMethods> = {
  readonly [K in keyof S]: MethodDefinition<
    Decoded<MessageShape<S[K]["input"]>>,
    MessageShape<S[K]["output"]>
  >;
};

function serializer<Desc extends DescMessage>(schema: Desc): (value: MessageShape<Desc>) => Buffer {
  return (value) => {
    const bytes = toBinary(schema, value);
    // Share the memory rather than copy: grpc-js only needs a Buffer view of the bytes.
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

function deserializer<Desc extends DescMessage>(schema: Desc): (bytes: Buffer) => MessageShape<Desc> {
  return (bytes) => fromBinary(schema, bytes);
}

function safeDeserializer<Desc extends DescMessage>(
  schema: Desc,
): (bytes: Buffer) => Decoded<MessageShape<Desc>> {
  return (bytes) => {
    try {
      return { ok: true, message: fromBinary(schema, bytes) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
}

/** The `/package.Service/Method` path gRPC sends in the `:path` header. */
function methodPath(service: { typeName: string }, method: { name: string }): string {
  return `/${service.typeName}/${method.name}`;
}

function isStreaming(kind: string): { requestStream: boolean; responseStream: boolean } {
  return {
    requestStream: kind === "client_streaming" || kind === "bidi_streaming",
    responseStream: kind === "server_streaming" || kind === "bidi_streaming",
  };
}

/**
 * The grpc-js definition of a protobuf-es service, for clients (`new Client(...)`'s `makeUnaryRequest`
 * and friends, or `makeGenericClientConstructor`). Every serializer is total; deserializers throw on
 * malformed bytes, which grpc-js reports to the client as an error status.
 */
export function grpcServiceDefinition<S extends GenServiceMethods>(
  service: GenService<S>,
): GrpcServiceDefinition<S> {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    definition[method.localName] = {
      path: methodPath(service, method),
      ...isStreaming(method.methodKind),
      requestSerialize: serializer(method.input) as (value: unknown) => Buffer,
      requestDeserialize: deserializer(method.input),
      responseSerialize: serializer(method.output) as (value: unknown) => Buffer,
      responseDeserialize: deserializer(method.output),
      originalName: method.localName,
    };
  }
  return definition as GrpcServiceDefinition<S>;
}

/**
 * The grpc-js definition of a protobuf-es service for `server.addService`: like
 * {@link grpcServiceDefinition}, but requests decode to {@link Decoded} values so that malformed bytes
 * become `INVALID_ARGUMENT` in the handler rather than grpc-js's `INTERNAL`.
 */
export function grpcServerServiceDefinition<S extends GenServiceMethods>(
  service: GenService<S>,
): GrpcServerServiceDefinition<S> {
  const definition: Record<string, MethodDefinition<Decoded<unknown>, unknown>> = {};
  for (const method of service.methods) {
    const serializeRequest = serializer(method.input) as (value: unknown) => Buffer;
    definition[method.localName] = {
      path: methodPath(service, method),
      ...isStreaming(method.methodKind),
      // Only used if this definition is (mis)used by a client; a failed decode has nothing to send.
      requestSerialize: (value) => {
        if (!value.ok) throw new Error(`cannot serialize an undecodable request: ${value.error}`);
        return serializeRequest(value.message);
      },
      requestDeserialize: safeDeserializer(method.input),
      responseSerialize: serializer(method.output) as (value: unknown) => Buffer,
      responseDeserialize: deserializer(method.output),
      originalName: method.localName,
    };
  }
  return definition as GrpcServerServiceDefinition<S>;
}
