#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: box
# description: Builtins only, and one program
# sandbox: {}
# ---
read -r line < "$RYE_RUN_DIR/in" || line=none
printf '{"line": "%s"}\n' "$line"
date
