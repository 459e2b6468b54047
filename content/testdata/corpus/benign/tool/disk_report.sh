#!/usr/bin/env bash
# ---
# version: "1.1.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: ops
# description: Report disk usage of the largest folders, and the API's status
# config_schema:
#   type: object
#   properties:
#     path: {type: string, description: "Folder to measure"}
#     top: {type: integer, default: 10}
# ---
set -euo pipefail

path="${RYE_PARAM_PATH:-.}"
top="${RYE_PARAM_TOP:-10}"

# Largest folders first.
largest=$(du -sh "$path"/* 2>/dev/null | sort -rh | head -n "$top" | awk '{printf "%s\t%s\n", $1, $2}')

status=$(curl -fsS --max-time 5 https://status.example.com/api/v2/status.json | jq -r '.status.indicator' || echo unknown)

cat <<JSON
{"success": true, "largest": $(printf '%s' "$largest" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'), "status": "$status"}
JSON
