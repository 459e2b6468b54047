#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: hello
# description: Count the lines of a file in the project
# config_schema:
#   type: object
#   properties:
#     file: {type: string, description: "File to count, relative to the project"}
#   required: [file]
# ---
set -euo pipefail
lines=$(wc -l < "$RYE_PARAM_FILE")
printf '{"success": true, "file": "%s", "lines": %d}\n' "$RYE_PARAM_FILE" "$lines"
