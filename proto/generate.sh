#!/bin/sh
# Generates TypeScript (ts-proto, grpc-js services) for Envoy's ext_authz and ext_proc services and
# their import closure into proto/gen/. The .proto sources are read from the installed npm package
# @grpc/grpc-js-xds (node_modules/@grpc/grpc-js-xds/deps/); nothing is downloaded.
# Run as `npm run gen:proto` (also run by `postinstall`). See docs/envoy-codegen.md.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
deps="$repo/node_modules/@grpc/grpc-js-xds/deps"
out="$repo/proto/gen"

if [ ! -d "$deps/envoy-api" ]; then
  echo "gen:proto: $deps not found; run npm ci first" >&2
  exit 1
fi

# buf resolves the workspace (proto/buf.yaml) against the current directory, so run it from deps/.
# The local plugin protoc-gen-ts_proto is found on PATH.
PATH="$repo/node_modules/.bin:$PATH"
export PATH
cd "$deps"
buf generate \
  --config "$repo/proto/buf.yaml" \
  --template "$repo/proto/buf.gen.yaml" \
  --output "$repo" \
  --path envoy-api/envoy/service/auth/v3/external_auth.proto \
  --path envoy-api/envoy/service/ext_proc/v3/external_processor.proto

echo "gen:proto: $(find "$out" -name '*.ts' | wc -l) files in proto/gen/"
