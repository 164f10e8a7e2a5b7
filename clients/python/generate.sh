#!/usr/bin/env bash
# Regenerates the Python protobuf and gRPC stubs of the minedit wire contract
# (proto/minedit/v1/reward.proto) into minedit_client/_gen/. The output is committed and never edited by
# hand; run this after changing the .proto.
#
# Needs `protoc` and `grpc_python_plugin` (Debian: protobuf-compiler, protobuf-compiler-grpc). The code
# protoc 3.21 generates runs on the protobuf Python runtime 3.20 and later (Debian bookworm ships 4.21);
# for a much newer runtime, regenerate with a matching protoc.
#
# The health service (grpc.health.v1) is deliberately NOT generated: its two messages are encoded by hand
# in minedit_client/client.py, so importing minedit_client never registers grpc.health.v1 descriptors that
# would collide with those of the grpcio-health-checking package in the same process.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# Optional argument: another output directory (the test that checks the committed stubs are current).
out="${1:-$here/minedit_client/_gen}"
mkdir -p "$out"

for tool in protoc grpc_python_plugin; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "generate.sh: $tool is missing. Install it, e.g.: sudo apt-get install -y protobuf-compiler protobuf-compiler-grpc" >&2
    exit 1
  fi
done

rm -rf "$out/minedit"
protoc -I "$repo/proto" \
  --python_out="$out" \
  --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
  "$repo/proto/minedit/v1/reward.proto"

# protoc writes absolute imports (`from minedit.v1 import reward_pb2`), which only resolve when _gen/ is
# on sys.path. Make them relative so the stubs work as a subpackage of minedit_client.
sed -i 's/^from minedit\.v1 import reward_pb2 as /from . import reward_pb2 as /' "$out/minedit/v1/reward_pb2_grpc.py"
touch "$out/__init__.py" "$out/minedit/__init__.py" "$out/minedit/v1/__init__.py"
echo "generate.sh: wrote $(cd "$out" && find minedit -name '*.py' | sort | tr '\n' ' ')" >&2
