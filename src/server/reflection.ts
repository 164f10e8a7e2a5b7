/**
 * gRPC server reflection (v1 and v1alpha, via `@grpc/reflection`), so `grpcurl` and friends can list
 * and call our methods without a copy of the .proto files.
 *
 * `@grpc/reflection` reads file descriptors from a proto-loader "package definition"; only the
 * `fileDescriptorProtos` of its entries are used. We build those entries from the descriptors embedded in
 * the protobuf-es generated code instead of loading the .proto files again at run time: reflection then
 * describes exactly the schema the server speaks, and the server needs no proto/ directory when deployed.
 */
import type { DescFile } from "@bufbuild/protobuf";
import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { Server } from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";

type PackageDefinition = ConstructorParameters<typeof ReflectionService>[0];

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

/**
 * Adds the reflection services to `server`, describing the services of `files` (protobuf-es `file_*`
 * descriptors, e.g. `file_minedit_v1_reward`).
 */
export function addReflection(server: Pick<Server, "addService">, files: readonly DescFile[]): void {
  const definition: PackageDefinition = {};
  for (const file of withDependencies(files)) {
    definition[file.proto.name] = {
      // The entry shape of a message type in a proto-loader package definition; only the descriptors matter.
      format: "Protocol Buffer 3 DescriptorProto",
      type: {},
      fileDescriptorProtos: [Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto))],
    };
  }
  new ReflectionService(definition).addToServer(server);
}
