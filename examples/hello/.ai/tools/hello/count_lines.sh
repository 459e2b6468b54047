#!/usr/bin/env bash
# rye:signed:v2:2026-01-01T00:00:00Z:60dba24d69b97fc4af630c18c65d38f522d320ccfd3c039891a849de68b189af:_V9LCmZmDV8J2A513NVgaQZNJZ83iEPMvcqQXBDZBv9Ekx3CH1psd0Bj2TdMIjbipoK5-J0uiZuDRgtpFa_6DQ==:256695833101b92e
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
