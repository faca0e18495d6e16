import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "proto/gen/", ".evident/", "bin/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // core/ knows no HTTP framework, no gRPC and no generated proto code.
    files: ["dataplane/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["fastify", "fastify/*", "@fastify/*"],
              message: "core/ must not import an HTTP framework",
            },
            { group: ["@grpc/*"], message: "core/ must not import grpc" },
            {
              group: ["**/proto/gen/**", "**/adapters/**"],
              message: "core/ must not import adapters or generated protos",
            },
          ],
        },
      ],
    },
  },
  {
    // Configuration is read from the environment in exactly one place.
    files: ["dataplane/**/*.ts", "operator/**/*.ts"],
    ignores: ["dataplane/config/**", "operator/config/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "read config from config/ only" },
      ],
    },
  },
);
